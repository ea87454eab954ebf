#!/bin/bash
# call 5 (warm, build-gpu of call 4): the small-systems suite, stock / fp64 / auto, two rounds
# of processes (cold and warm), and hypre's ij on the two 1M problems
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
[ -x build-gpu/bin/amgt-solve ] || { echo "no build"; exit 1; }
timeout 100 python3 bench/ij_compare.py --build build-gpu --modes unset,fp64,auto --procs 3 --problems small --json $OUT/ij_small.json > $OUT/ij_small.txt 2>&1
echo "ij rc $? at $(el) s"; tail -9 $OUT/ij_small.txt
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv > /tmp/small.tsv
left=$(( 570 - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/small.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-plots --no-stats --timeout 60 --out /tmp/sm > /tmp/sm.log 2>&1
echo "small rc $? at $(el) s"; cp /tmp/sm/summary.txt $OUT/small_summary.txt 2>/dev/null; cp /tmp/sm/runs.jsonl $OUT/small_runs.jsonl 2>/dev/null; tail -4 /tmp/sm.log
echo "end $(el) s"
