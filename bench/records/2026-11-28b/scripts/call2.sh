#!/bin/bash
# call 2 (warm, build-gpu kept): large step sequences, drift dt, 10 steps
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
[ -x build-gpu/bin/amgt-solve ] || { echo "no build"; exit 1; }
grep -E "^laplace(7|27)-" bench/cases_steps_large.tsv > /tmp/large.tsv
timeout -s INT 585 ./scripts/run.sh --no-build --cases /tmp/large.tsv --modes stock,stock-frozen,auto-resetup --repeat 1 --no-plots --timeout 200 --out /tmp/lg > /tmp/lg.log 2>&1
echo "steps large rc $? at $(el) s"; cp /tmp/lg/summary.txt $OUT/steps_large_summary.txt 2>/dev/null; cp /tmp/lg/runs.jsonl $OUT/steps_large_runs.jsonl 2>/dev/null
grep -E "^  (stock|stock-frozen|auto-resetup) |AMGT: re-setups|AMGT: setups" /tmp/lg/summary.txt | cut -c1-200 | head -24
echo "end $(el) s"
