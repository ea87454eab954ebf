#!/bin/bash
# record 2026-11-27b, device call 2: fp32/fp16 mBSR copies in bitmap order, fp64 in entry order with unranked tiles: GPU tests, AMGT_STATS, run.sh large and 1M
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 100 ctest -R "Preload|DriverModes|Survey|Precision|AutoVsFp64" -j 4 --output-on-failure) > $OUT/ctest_more.log 2>&1; echo "ctest more rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_more.log | head
for c in "laplace7 250 auto" "laplace27 200 auto" "systems3 126 auto"; do
  set -- $c
  AMGT=$3 AMGT_STATS=1 timeout 40 build-gpu/bin/amgt-solve --problem $1 --n $2 --solver pcg --repeat 2 > /tmp/o.txt 2>&1; echo "stats $c rc $? at $(( $(date +%s) - t0 )) s"
  { echo "## $c"; cat /tmp/o.txt; } >> $OUT/stats_large.txt
done
grep -E "^## |  result|plugin setup work|^ +[0-2] " $OUT/stats_large.txt | cut -c1-200
export AMGT_BUILD_DIR=build-gpu
left=$(( 520 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/lg/summary.txt $OUT/large_summary.txt
sed -n '/Geometric mean/,/^$/p' /tmp/lg/summary.txt | head -8
grep -E "^[a-z]|  (stock|fp64|auto) " /tmp/lg/summary.txt | cut -c1-150 | head -20
echo "total $(( $(date +%s) - t0 )) s"
