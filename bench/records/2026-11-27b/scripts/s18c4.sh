#!/bin/bash
# record 2026-11-27b, device call 4 (final code: fp32/fp16 bitmap order with ranked tiles, fp64 entry order with first-seen tiles): GPU tests, run.sh large
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 110 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
export AMGT_BUILD_DIR=build-gpu
left=$(( 310 - ($(date +%s) - t0) ))
[ $left -gt 40 ] && { timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --rounds 1 --no-stats --no-plots --timeout 60 --out /tmp/lg > /tmp/lg.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/lg/summary.txt $OUT/large_summary.txt 2>/dev/null
sed -n '/Geometric mean/,/^$/p' /tmp/lg/summary.txt | head -8
grep -E "^[a-z]|  (fp64|auto) " /tmp/lg/summary.txt | cut -c1-150 | head -14; }
echo "total $(( $(date +%s) - t0 )) s"
