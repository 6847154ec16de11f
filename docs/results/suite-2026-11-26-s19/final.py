import lzma,re,sys,math,collections
"""Selected packages against cuSPARSE and against the faster of cuSPARSE and
dense cuBLAS, per K and set: geomean (min)."""
f=sys.argv[1]
by=collections.defaultdict(list)
for l in lzma.open(f,'rt'):
    if not l.startswith('bench '): continue
    d=dict(re.findall(r'(\w+)=(\S+)',l)); p=l.split()[1].split('/')[-1]
    if p.endswith('.auto.auto.spp'): kind='default'
    elif re.search(r'auto-k\d+\.auto\.spp$',p): kind='--k K'
    else: continue
    s=float(d['spperm_ms']); c=float(d['cusparse_ms']); dm=float(d.get('dense_ms','0') or 0)
    lib=min(c, dm if dm>0 else 1e9)
    st=p.split('__')[0]
    for g in (st,'all'):
        by[(int(d['K']),kind,g)].append((c/s, lib/s))
gm=lambda v: math.exp(sum(map(math.log,v))/len(v))
print('| K | package | set | n | vs cuSPARSE | vs faster of cuSPARSE and dense |')
print('|---|---|---|---|---|---|')
for k in sorted(by, key=lambda x:(x[0],x[1]!='default',['all','dlmc','suitesparse','gnn'].index(x[2]))):
    v=by[k]; a=[x[0] for x in v]; b=[x[1] for x in v]
    print('| %d | %s | %s | %d | %.3f (%.2f) | %.3f (%.2f) |'%(k[0],k[1],k[2],len(v),gm(a),min(a),gm(b),min(b)))
