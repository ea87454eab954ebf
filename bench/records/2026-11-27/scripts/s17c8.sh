#!/bin/bash
# record 2026-11-27, device call 8: the review mends (one grid rule, estimate_fill through estimate_fills, the survey's item array, the bench's layout step as the planner's): GPU tests, driver tests, AMGT_STATS, run.sh large and 1M
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 100 ctest -R "Preload|DriverModes|Survey|Precision|AutoVsFp64" -j 4 --output-on-failure) > $OUT/ctest_more.log 2>&1; echo "ctest more rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_more.log | head
AMGT=auto AMGT_STATS=1 timeout 60 build-gpu/bin/amgt-solve --problem laplace7 --n 250 --solver pcg --repeat 2 > $OUT/stats_l7_250_auto.txt 2>&1; echo "stats rc $? at $(( $(date +%s) - t0 )) s"
grep -E "  result|plugin setup work|setup survey" $OUT/stats_l7_250_auto.txt
export AMGT_BUILD_DIR=build-gpu
left=$(( 440 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/lg/summary.txt $OUT/large_summary.txt
sed -n '/Geometric mean/,/^$/p' /tmp/lg/summary.txt | head -8
left=$(( 590 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-stats --no-plots --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1
echo "1M rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/m1/summary.txt $OUT/m1_summary.txt
sed -n '/Geometric mean/,/^$/p' /tmp/m1/summary.txt | head -8
echo "total $(( $(date +%s) - t0 )) s"
