#!/bin/bash
# record 2026-11-26b, device call 10: run.sh on the 1M cases, three rounds (separate processes), stock/fp64/auto
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
for r in 1 2 3; do
 timeout -s INT 120 ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 5 --no-stats --no-plots --timeout 60 --out /tmp/m1r$r > /tmp/m1.log 2>&1; echo "1M round $r rc $? at $(( $(date +%s) - t0 )) s"
 cp /tmp/m1r$r/runs.jsonl $OUT/m1_round${r}_runs.jsonl; cp /tmp/m1r$r/summary.txt $OUT/m1_round${r}_summary.txt
 grep -A4 "^Geometric mean" /tmp/m1r$r/summary.txt | tail -3
done
echo "total $(( $(date +%s) - t0 )) s"
