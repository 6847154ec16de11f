#!/usr/bin/env python3
"""bf16 / fp32 time ratios by how close the fp32 call is to the roofline.

Usage: roofline_ratio.py FP32.verify.log BF16.verify.log [v]
Reads spperm-verify `bench` lines of the same matrices in both dtypes and
prints, per K, the geomean of bf16 time / fp32 time over the layers
memory-bound by half.py's proxy (working set above 50 MB or fp32 time of
20 us or more) and over those whose fp32 time is within 2x, 3x and 4x of
BENCHMARK.md's roofline floor (compulsory traffic over BW, the copy
bandwidth the suite measured on the H200); with `v`, the proxy's layers one
by one.
"""
import math
import re
import sys

BW = 4255.5e9  # bench.json meta.floor.copy_gbs of call 1 (calls: 4,234-4,260)
def load(f):
    r={}
    for line in open(f):
        if not line.startswith("bench "): continue
        t=line.split(); pkg=t[1].rsplit("/",1)[-1]
        kv=dict(x.split("=",1) for x in t[3:] if "=" in x)
        name=re.sub(r"\.(auto\.auto|bf16|f32k\d+|bf16k\d+)\.spp$","",pkg)
        r[(name,int(kv["K"]))]=kv
    return r
f32=load(sys.argv[1]); b16=load(sys.argv[2])
for k in sorted({k for (_,k) in f32}):
  proxy=[];strict={0.5:[],0.33:[],0.25:[]}
  for (n,kk),r in f32.items():
    if kk!=k or (n,k) not in b16: continue
    t32=float(r["spperm_ms"])*1e-3; t16=float(b16[(n,k)]["spperm_ms"])*1e-3
    nnz=int(r["nnz"]);M=int(r["rows"]);N=int(r["cols"])
    floor=(8*nnz+4*(M+1)+4*N*k+4*M*k)/BW
    frac=floor/t32; q=t16/t32
    ws=8*nnz+4*(M+N)*k
    if ws>50e6 or t32>=20e-6:
        proxy.append((q,frac,n))
    for th in strict:
        if frac>=th: strict[th].append(q)
  g=lambda xs: math.exp(sum(map(math.log,xs))/len(xs)) if xs else float('nan')
  print("K=%d proxy %.3f (%d)"%(k,g([p[0] for p in proxy]),len(proxy)), " ".join("frac>=%.2f: %.3f (%d)"%(th,g(v),len(v)) for th,v in strict.items()))
  if len(sys.argv)>3:
    for q,frac,n in sorted(proxy): print("   %.3f  fp32 at %.0f%% of roofline  %s"%(q,100*frac,n))
