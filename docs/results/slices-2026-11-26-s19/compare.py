import lzma,re,sys,math,collections
f=sys.argv[1]
rows=[]
for l in lzma.open(f,'rt'):
    if not l.startswith('bench '): continue
    d=dict(re.findall(r'(\w+)=(\S+)',l))
    p=l.split()[1].split('/')[-1]
    d['pkg']=p
    rows.append(d)
by=collections.defaultdict(list)
for d in rows:
    K=int(d['K']); 
    kind='auto' if d['pkg'].endswith('.auto.auto.spp') else ('autok' if re.search(r'auto-k\d+\.auto\.spp$',d['pkg']) else 'csr')
    lib=min(float(d["cusparse_ms"]), float(d.get("dense_ms","inf")) if float(d.get("dense_ms","inf"))>0 else 1e9)
    nnz=int(d['nnz'])
    cls='dlmc' if 'dlmc' in d['pkg'] else 'other'
    sz='all'
    by[(K,kind,cls,sz)].append((lib/float(d['spperm_ms']), float(d['spperm_ms']), nnz, d['pkg']))
for k in sorted(by):
    v=by[k]; g=math.exp(sum(math.log(x[0]) for x in v)/len(v))
    print(k, len(v), round(g,3), 'min', round(min(x[0] for x in v),2))
