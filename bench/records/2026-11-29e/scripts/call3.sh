#!/bin/bash
# call 3 (call 1's machine and build): AMGT_SETUP_KERNELS=large against the default where the
# plugin's setup kernels matter: the five 1M cases and the large cases, stock, auto, auto-skl,
# fp64-skl's partner fp64 left out for time; hypre's ij on its large problems.
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
timeout 200 ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,auto,auto-skl --repeat 3 --rounds 2 \
  --no-plots --no-stats --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1; echo "1M rc $? at $(el) s"
grep -A14 -E "^Geomean|geomean" /tmp/m1/summary.txt | head -30
timeout 230 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,auto,auto-skl --repeat 2 \
  --no-plots --no-stats --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1; echo "large rc $? at $(el) s"
grep -A14 -E "^Geomean|geomean" /tmp/lg/summary.txt | head -30
left=$(( 560 - $(el) ))
[ $left -gt 40 ] && timeout $left python3 bench/ij_compare.py --build build-gpu --modes unset,auto,auto-skl --procs 1 --problems large \
  --json /tmp/ij.json > /tmp/ij.txt 2>&1; echo "ij rc $? at $(el) s"; tail -12 /tmp/ij.txt
for d in m1 lg; do cp /tmp/$d/summary.txt /tmp/${d}_summary.txt 2>/dev/null; cp /tmp/$d/runs.jsonl /tmp/${d}_runs.jsonl 2>/dev/null; done
tar cJf $OUT/call3.tar.xz -C /tmp m1_summary.txt m1_runs.jsonl lg_summary.txt lg_runs.jsonl ij.txt ij.json m1.log lg.log 2>/dev/null
echo "end $(el) s"
