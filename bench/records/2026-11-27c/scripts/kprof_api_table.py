import gzip,sys,collections
def load(f):
    P=[];R=[]
    for l in gzip.open(f,'rt'):
        a=l.rstrip('\n').split('\t')
        if a[0]=='P': P.append((a[1],int(a[2]),int(a[3])))
        elif a[0]=='R': R.append((a[1],int(a[2]),int(a[3])))
    return P,R
res={}
for f in sys.argv[1:]:
    P,R=load(f); s=[p for p in P if p[0]=='HYPRE_BoomerAMGSetup'][-1]
    agg=collections.defaultdict(lambda:[0,0.0])
    for n,a,b in R:
        if a>=s[1] and b<=s[2]: agg[n][0]+=1; agg[n][1]+=(b-a)/1e6
    res[f]=agg
keys=sorted(set().union(*[set(v) for v in res.values()]), key=lambda k:-max(r[k][1] for r in res.values() if k in r))
print("%-48s"%"api", *["%22s"%f.split('/')[-1][2:-7] for f in sys.argv[1:]])
for k in keys[:25]:
    print("%-48s"%k[:48], *["%10d %10.3f"%(tuple(res[f][k]) if k in res[f] else (0,0)) for f in sys.argv[1:]])
