import lzma,re,sys,math,collections
f=sys.argv[1]
T=collections.defaultdict(dict); lib={}
for l in lzma.open(f,'rt'):
    if not l.startswith('bench '): continue
    d=dict(re.findall(r'(\w+)=(\S+)',l))
    p=l.split()[1].split('/')[-1]
    p=p[:-4]
    if p.endswith('.csr.identity'): m,var=p[:-13],'csr.identity'
    else: m,var=p.rsplit('.',1)
    K=int(d['K'])
    T[(m,K)][var]=float(d['spperm_ms'])
    dm=float(d.get('dense_ms','0') or 0)
    lib[(m,K)]=min(float(d['cusparse_ms']), dm if dm>0 else 1e9)
def gm(v): return math.exp(sum(map(math.log,v))/len(v)) if v else float('nan')
for K in (128,256,512):
    vars_=sorted({v for (m,k),d in T.items() if k==K for v in d})
    for grp in ('dlmc','other'):
        keys=[(m,k) for (m,k) in T if k==K and (('dlmc' in m)==(grp=='dlmc'))]
        out=[]
        for v in vars_:
            r=[lib[x]/T[x][v] for x in keys if v in T[x]]
            out.append('%s=%.3f(%.2f)'%(v,gm(r),min(r)) if r else '')
        best=[lib[x]/min(t for vv,t in T[x].items()) for x in keys]
        print(K,grp,len(keys),' '.join(out),'best=%.3f'%gm(best))
print()
info={}
for l in lzma.open(f,'rt'):
    if l.startswith('bench '):
        d=dict(re.findall(r'(\w+)=(\S+)',l)); p=l.split()[1].split('/')[-1][:-4]
        m=p[:-13] if p.endswith('.csr.identity') else p.rsplit('.',1)[0]
        info[m]=(int(d['rows']),int(d['cols']),int(d['nnz']))
KK=int(sys.argv[2]) if len(sys.argv)>2 else 512
for (m,k) in sorted(T, key=lambda x: info[x[0]][2]):
    if k!=KK: continue
    d=T[(m,k)]; r,c,n=info[m]
    print('%-60s %6d %6d %8d %5.1f lib=%.4f '%(m[-60:],r,c,n,n/r,lib[(m,k)]) + ' '.join('%s=%.2f'%(v.split('-')[-1] if v!='csr.identity' else 'id',lib[(m,k)]/t) for v,t in sorted(d.items())))
print()
def p2c(v):
    v=max(int(v),1); r=1
    while r<v: r*=2
    return r
def bf(v):
    if v<1: return 0
    r=1
    while r*2<=v: r*=2
    return r
def parts(rows,mean,lanes):
    tg=132*32*max(1,32//lanes)
    return max(1,min(bf(tg//rows), p2c(math.ceil(mean/lanes)), 256//lanes & -(256//lanes)))
for K,s128,s32 in ((256,'k256-s2','k256-s8'),(512,'k512-s4','k512-s16')):
  for grp in ('dlmc','other'):
    ra=[];rb=[];rc=[];r0=[]
    for (m,k),d in T.items():
        if k!=K or (('dlmc' in m)!=(grp=='dlmc')): continue
        r,c,n=info[m]; mean=n/r
        p=parts(r,mean,32); warps=r*p
        sl=K//32; ps=parts(r*sl,mean,8)
        few = warps<=8*132 and ps>p
        ra.append(lib[(m,k)]/d[s128]); r0.append(lib[(m,k)]/d['csr.identity'])
        rb.append(lib[(m,k)]/d[s32 if few else s128])
        rc.append(lib[(m,k)]/max(d[s128],d[s32]) if False else lib[(m,k)]/min(d[s128],d[s32]))
    print(K,grp,'none=%.3f A=%.3f B=%.3f best2=%.3f'%(gm(r0),gm(ra),gm(rb),gm(rc)))
print()
for K,s128,s32 in ((256,'k256-s2','k256-s8'),(512,'k512-s4','k512-s16')):
  for thr_mean in (8,16,32):
   for thr_rows in (1024,4096,100000):
    out=[]
    for grp in ('dlmc','other'):
      rb=[]
      for (m,k),d in T.items():
        if k!=K or (('dlmc' in m)!=(grp=='dlmc')): continue
        r,c,n=info[m]; mean=n/r
        few = mean>=thr_mean and r<=thr_rows
        rb.append(lib[(m,k)]/d[s32 if few else s128])
      out.append('%s=%.3f(%.2f)'%(grp,gm(rb),min(rb)))
    print(K,thr_mean,thr_rows,*out)
