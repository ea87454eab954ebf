import gzip,sys,subprocess,re,collections
f=sys.argv[1]; which=int(sys.argv[2]) if len(sys.argv)>2 else -1
P=[];recs=[]
for l in gzip.open(f,'rt'):
    a=l.rstrip('\n').split('\t')
    if a[0]=='P': P.append((a[1],int(a[2]),int(a[3])))
    else: recs.append((a[0],a[1],int(a[2]),int(a[3]),a[4]))
setups=[p for p in P if p[0]=='HYPRE_BoomerAMGSetup']
s=setups[which]; t0,t1=s[1],s[2]
print("setup wall ms %.3f"%((t1-t0)/1e6))
K=[r for r in recs if r[0] in 'KC' and r[2]>=t0 and r[3]<=t1]
names=sorted({r[1] for r in K})
dm=dict(zip(names,subprocess.run(["c++filt"],input="\n".join(names),capture_output=True,text=True).stdout.split("\n")))
def short(n):
    n=dm.get(n,n); n=n.replace("(anonymous namespace)::","");n=re.sub(r"\(.*","",n); n=re.sub(r"^void ","",n); return n[:110]
# timeline of amgt kernels with gaps
mode=sys.argv[3] if len(sys.argv)>3 else 'sum'
if mode=='sum':
    agg=collections.defaultdict(lambda:[0,0.0])
    for r in K:
        k=short(r[1]); agg[k][0]+=1; agg[k][1]+=(r[3]-r[2])/1e6
    tot=sum(v[1] for v in agg.values())
    print("kernel+copy ms %.3f"%tot)
    for k,v in sorted(agg.items(),key=lambda x:-x[1][1])[:45]: print("%8.3f %5d %s"%(v[1],v[0],k))
else:
    K.sort(key=lambda r:r[2])
    for r in K:
        n=short(r[1])
        if re.search(mode,n): print("%9.3f %7.3f %s"%((r[2]-t0)/1e6,(r[3]-r[2])/1e6,n))
