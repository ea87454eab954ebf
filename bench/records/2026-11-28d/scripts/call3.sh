#!/bin/bash
# call 3 (warm): the four large cases with the cost model, stock / fp64 / auto
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
[ -x build-gpu/bin/amgt-solve ] || { echo "no build"; exit 1; }
timeout -s INT 560 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --no-stats --no-plots --timeout 150 --out /tmp/lg > /tmp/lg.log 2>&1
echo "large rc $? at $(el) s"; cp /tmp/lg/summary.txt $OUT/large_summary.txt 2>/dev/null; cp /tmp/lg/runs.jsonl $OUT/large_runs.jsonl 2>/dev/null; grep -E "geomean|geometric" -A6 /tmp/lg/summary.txt | head -20
echo "end $(el) s"
