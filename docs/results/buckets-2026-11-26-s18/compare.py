import sys, lzma, re, math, collections
log=sys.argv[1]
t=collections.defaultdict(dict)
for line in lzma.open(log,'rt'):
    if not line.startswith('bench '): continue
    parts=line.split(); pkg=parts[1].split('/')[-1]
    m=re.match(r'(.*)\.([a-z0-9-]+\.[a-z0-9-]+)\.spp$',pkg)
    kv=dict(p.split('=',1) for p in parts[3:] if '=' in p)
    K=int(kv['K']); n=m.group(1); c=m.group(2)
    t[(n,K)][c]=float(kv['spperm_ms'])
    if c=='csr.identity':
        t[(n,K)]['cusparse']=float(kv['cusparse_ms'])
        if float(kv.get('dense_ms',-1))>0: t[(n,K)]['dense']=float(kv['dense_ms'])
print('| K | matrices | per-K time / default time: geomean (worst) | default vs cuSPARSE | per-K vs cuSPARSE | default vs best library | per-K vs best library |')
print('|---|---|---|---|---|---|---|')
for K in (1,8,32,64,96,128,256,512):
    spec='auto-k%d.auto'%K if K!=1 else None
    L=[]
    for (n,k),d in t.items():
        if k!=K or 'auto.auto' not in d or 'cusparse' not in d: continue
        lib=min(d['cusparse'],d.get('dense',1e9))
        s=d.get(spec) if spec else d['auto.auto']
        if s is None: continue
        L.append((d['auto.auto']/s, d['cusparse']/d['auto.auto'], d['cusparse']/s, lib/d['auto.auto'], lib/s))
    if not L: continue
    gm=lambda i: math.exp(sum(math.log(x[i]) for x in L)/len(L))
    print(f'| {K} | {len(L)} | {1/gm(0):.3f} ({1/max(x[0] for x in L):.2f}) | {gm(1):.3f} | {gm(2):.3f} | {gm(3):.3f} | {gm(4):.3f} |')
