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
def grp(n):
    if n.startswith('dlmc'): return 'dlmc'
    return n.split('__')[0]
for K in (32,128,512):
    for cand in ('auto.auto','auto-k%d.auto'%K):
        rows=collections.defaultdict(list)
        for (n,k),d in t.items():
            if k!=K or cand not in d or 'cusparse' not in d: continue
            lib=min(d['cusparse'],d.get('dense',1e9))
            r=(d['cusparse']/d[cand], lib/d[cand])
            rows[grp(n)].append(r); rows['all'].append(r)
        for g,L in sorted(rows.items()):
            gm=lambda i: math.exp(sum(math.log(x[i]) for x in L)/len(L))
            print(f'K={K} {cand:14s} {g:12s} n={len(L):3d} vs cuSPARSE {gm(0):.3f} (min {min(x[0] for x in L):.2f}) vs best library {gm(1):.3f} (min {min(x[1] for x in L):.2f}, below 0.98: {sum(x[1]<0.98 for x in L)})')
