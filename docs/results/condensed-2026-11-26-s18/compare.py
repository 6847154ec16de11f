import sys, lzma, re, math, collections
log=sys.argv[1]; cands=sys.argv[2].split(','); Kwant=int(sys.argv[3])
t=collections.defaultdict(dict)
for line in lzma.open(log,'rt'):
    if not line.startswith('bench '): continue
    parts=line.split(); pkg=parts[1].split('/')[-1]
    m=re.match(r'(.*)\.([a-z0-9-]+\.[a-z0-9-]+)\.spp$',pkg)
    kv=dict(p.split('=',1) for p in parts[3:] if '=' in p)
    K=int(kv['K'])
    if K!=Kwant: continue
    t[m.group(1)][m.group(2)]=float(kv['spperm_ms'])
    if 'cusparse_ms' in kv: t[m.group(1)]['cusparse']=float(kv['cusparse_ms'])
def grp(n):
    if n.startswith('dlmc__transformer'): return 'dlmc-tr-'+n.split('__')[3]
    if n.startswith('dlmc__rn50'): return 'dlmc-rn50'
    return n.split('__')[0]
rows=collections.defaultdict(list)
for n,d in t.items():
    if 'cusparse' not in d or not all(c in d for c in cands): continue
    rows[grp(n)].append(d); rows['all'].append(d)
for g,L in sorted(rows.items()):
    out=['%s %.3f'%(c, math.exp(sum(math.log(d['cusparse']/d[c]) for d in L)/len(L))) for c in cands]
    best=math.exp(sum(math.log(d['cusparse']/min(d[c] for c in cands)) for d in L)/len(L))
    print(f'K={Kwant} {g:14s} n={len(L):3d} '+'  '.join(out)+f'  best {best:.3f}')
