#!/bin/bash
# call 4 (build-gpu kept): one-shot (cold) processes of the 1M cases with the setup kernels;
# the two small cases below 0.98 again, more processes
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
timeout -s INT 200 ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64-sk,auto-sk --repeat 1 --rounds 4 --no-plots --no-stats --timeout 60 --out /tmp/c1m > /tmp/c1m.log 2>&1
echo "cold 1M rc $? at $(el) s"; cp /tmp/c1m/summary.txt $OUT/cold1m_summary.txt; cp /tmp/c1m/runs.jsonl $OUT/cold1m_runs.jsonl; grep -iE "cold|geomean" /tmp/c1m/summary.txt | head -30
printf 'laplace27-n22\t--problem laplace27 --n 22 --solver pcg\njump7-n22\t--problem jump7 --n 22 --solver pcg\n' > /tmp/two.tsv
timeout 150 python3 bench/beside_stock.py --build build-gpu --cases /tmp/two.tsv --modes fp64-sk,auto-sk,fp64,auto --procs 5 --repeat 6 --timeout 60 --json $OUT/bs_two.json > $OUT/bs_two.txt 2>&1
echo "beside two rc $? at $(el) s"; tail -14 $OUT/bs_two.txt
echo "end $(el) s"
