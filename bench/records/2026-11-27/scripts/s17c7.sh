#!/bin/bash
# record 2026-11-27, device call 7: one setup + ten solves on the large cases, final code
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
left=$(( 585 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --solves 10 --repeat 3 --rounds 1 --no-stats --no-plots --timeout 150 --out /tmp/s10 > /tmp/s10.log 2>&1
echo "solves10 rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/s10/summary.txt $OUT/large_solves10_summary.txt
sed -n '/Geometric mean/,$p' /tmp/s10/summary.txt | head -14
echo "total $(( $(date +%s) - t0 )) s"
