#!/usr/bin/env python3
# The medians of each case-mode's processes, unpaired (cold setup, cold solve, warm setup, warm
# solve), stock's over the mode's, from cold_rounds batches (run in .carry/prev or given as files).
import json,glob,statistics as st,math,sys
from collections import defaultdict
files=sys.argv[1:] or sorted(glob.glob('cold_[ijkl]_batch*.jsonl'))
d=defaultdict(lambda: defaultdict(list))
keys=('cold_setup_s','cold_solve_s','setup_s','solve_s','probe_api_s')
for f in files:
    for line in open(f):
        r=json.loads(line)
        for p in (r.get('processes') or [r['result']]):
            res=p.get('result',p)
            if 'cold_setup_s' not in res: continue
            d[r['case']][r['mode']].append([res.get(k) for k in keys])
print('%-16s %-6s %5s %7s %7s %7s %7s  (stock median / mode median)'%('case','mode','procs','c.setup','c.solve','setup','solve'))
geo=defaultdict(lambda: [0.0]*4); n=defaultdict(int)
for c in sorted(d):
    s=d[c]['stock']
    ms=[st.median(x[i] for x in s) for i in range(4)]
    for m in ('fp64','auto','mixed'):
        v=d[c][m]
        if not v: continue
        mm=[st.median(x[i] for x in v) for i in range(4)]
        rr=[a/b for a,b in zip(ms,mm)]
        for i in range(4): geo[m][i]+=math.log(rr[i])
        n[m]+=1
        print('%-16s %-6s %5d %7.3f %7.3f %7.3f %7.3f'%(c,m,len(v),*rr))
for m in n: print('geomean',m,' '.join('%.3f'%math.exp(g/n[m]) for g in geo[m]))
