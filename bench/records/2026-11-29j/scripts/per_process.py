"""Record 2026-11-29j, call 2: per kprof trace (k/<case>_<mode>_<i>.tsv, run from the folder
holding k/), the time from the first CUDA call to the first setup, the first setup's and the
first solve's wall time, and the mean time of one cudaGetLastError in the setup and before it
(a call that does no work: the process's host speed). The raw traces are not kept; the
record's archive holds this script's output (call2/per_process.txt) and kprof's reports."""
import glob
def load(p):
    ev=[l.rstrip('\n').split('\t') for l in open(p)]
    ph=[(e[1],int(e[2]),int(e[3])) for e in ev if e[0]=='P']
    rs=[(e[0],e[1],int(e[2]),int(e[3])) for e in ev if e[0] in 'RD' and len(e)>3]
    return ph,rs
for i in [1,2,3,4]:
  for case in ['fv1','ted_B','laplace27-n22']:
    for m in ['stock','auto','auto-np','fp64']:
        ph,rs=load(f'k/{case}_{m}_{i}.tsv')
        t0=min(r[2] for r in rs)
        s=[p for p in ph if p[0]=='HYPRE_BoomerAMGSetup'][0]
        sv=[p for p in ph if p[0]=='HYPRE_ParCSRPCGSolve'][0]
        # mean duration of cudaGetLastError calls (pure host work) in setup
        g=[r[3]-r[2] for r in rs if r[1].startswith('cudaGetLastError') and s[1]<=r[2]<=s[2]]
        g0=[r[3]-r[2] for r in rs if r[1].startswith('cudaGetLastError') and r[2]<s[1]]
        print(f"{i} {case:14} {m:8} start {(s[1]-t0)/1e6:7.1f} setup {(s[2]-s[1])/1e6:6.1f} solve {(sv[2]-sv[1])/1e6:5.1f} getlasterr ns setup {sum(g)/max(1,len(g)):6.0f} before {sum(g0)/max(1,len(g0)):6.0f}")
