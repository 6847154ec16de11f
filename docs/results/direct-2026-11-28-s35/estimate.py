"""Scale s31's bf16 spperm times by today's paired new/old ratios (changed packages)."""
import re,sys
def load(p):
    out={}
    for l in open(p):
        if not l.startswith("bench "): continue
        f=l.split(); kv=dict(t.split("=",1) for t in f[3:] if "=" in t)
        name=re.sub(r"\.[a-z0-9]*?(old|new)\.spp$","",f[1].rsplit("/",1)[-1])
        out[(name,int(kv["K"]))]=float(kv["spperm_ms"])
    return out
o=load(sys.argv[2]); n=load(sys.argv[3])
for l in open(sys.argv[1]):
    if l.startswith("bench "):
        f=l.split(); name=re.sub(r"\.bf16\.spp$","",f[1].rsplit("/",1)[-1]); kv=dict(t.split("=",1) for t in f[3:] if "=" in t)
        key=(name,int(kv["K"]))
        if key in o and key in n:
            r=n[key]/o[key]
            l=re.sub(r"spperm_ms=([0-9.eE+-]+)", lambda m: "spperm_ms=%.6f"%(float(m.group(1))*r), l)
    sys.stdout.write(l)
