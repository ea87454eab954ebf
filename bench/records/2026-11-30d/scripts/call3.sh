#!/bin/bash
# call 3 (chained): the 1M cases side by side, five modes, two processes a mode; hypre's own
# ij driver built against the drop-in on its large problems, AMGT unset against the plugin
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=$OUT/call3; mkdir -p $W
export AMGT_BUILD_DIR=build-gpu
timeout -s INT 360 ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,stock-default,fp64,auto,mixed --repeat 2 --rounds 2 \
  --no-plots --no-stats --timeout 60 --out /tmp/m1 > $W/m1.log 2>&1
echo "1m rc $? at $(el) s"; cp /tmp/m1/runs.jsonl $W/m1_runs.jsonl; cp /tmp/m1/summary.txt $W/m1_summary.txt; sed -n '/^Geometric mean/,$p' /tmp/m1/summary.txt | head -12
left=$(( 580 - $(el) ))
[ $left -gt 60 ] && timeout $left python3 bench/ij_compare.py --build build-gpu --modes unset,fp64,auto --procs 1 --problems large \
  --json $W/ij.json > $W/ij.txt 2>&1; echo "ij rc $? at $(el) s"; tail -12 $W/ij.txt
echo "end $(el) s"
