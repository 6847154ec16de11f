import lzma,re,sys,math,collections
f=sys.argv[1]
T=collections.defaultdict(dict); lib={}; info={}
for l in lzma.open(f,'rt'):
    if not l.startswith('bench '): continue
    d=dict(re.findall(r'(\w+)=(\S+)',l))
    p=l.split()[1].split('/')[-1][:-4]
    if p.endswith('.csr.identity'): m,var=p[:-13],'id'
    else: m,var=p.rsplit('.',1); var=var.split('-')[1]
    K=int(d['K'])
    T[(m,K)][var]=float(d['spperm_ms'])
    dm=float(d.get('dense_ms','0') or 0)
    if 'cusparse_ms' in d: lib[(m,K)]=min(float(d['cusparse_ms']), dm if dm>0 else 1e9)
    info[m]=(int(d['rows']),int(d['cols']),int(d['nnz']))
def gm(v): return math.exp(sum(map(math.log,v))/len(v)) if v else float('nan')
for K in (128,256,512):
  for grp in ('dlmc','other'):
    keys=[x for x in T if x[1]==K and (('dlmc' in x[0])==(grp=='dlmc'))]
    a=[lib[x]/T[x]['always'] for x in keys]; n=[lib[x]/T[x]['never'] for x in keys]
    b=[lib[x]/min(T[x]['always'],T[x]['never']) for x in keys]
    print(K,grp,len(keys),'never=%.3f always=%.3f best=%.3f'%(gm(n),gm(a),gm(b)))
print()
KK=int(sys.argv[2])
for (m,k) in sorted(T,key=lambda x:(info[x[0]][2]/info[x[0]][0]/info[x[0]][1])):
    if k!=KK: continue
    r,c,n=info[m]; d=T[(m,k)]
    print('%-50s %5d %5d %7d dens=%.3f lib=%.4f never=%.2f always=%.2f'%(m[-50:],r,c,n,n/r/c,lib[(m,k)],lib[(m,k)]/d['never'],lib[(m,k)]/d['always']))
