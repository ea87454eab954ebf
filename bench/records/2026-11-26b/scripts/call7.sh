#!/bin/bash
# record 2026-11-26b, device call 7: GPU tests + run.sh on the 1M cases (stock, fp64, auto)
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"; git log --oneline | head -1
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_gpu.log | head
export AMGT_BUILD_DIR=build-gpu
left=$(( 575 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 5 --no-stats --no-plots --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1; echo "1M rc $? at $(( $(date +%s) - t0 )) s"
cp /tmp/m1/runs.jsonl $OUT/m1_runs.jsonl; cp /tmp/m1/summary.txt $OUT/m1_summary.txt; tail -5 /tmp/m1.log
echo "total $(( $(date +%s) - t0 )) s"
