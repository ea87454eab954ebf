#!/bin/bash
# record 2026-11-27, device call 3: end to end with the new rows lanes: large and 1M, stock/fp64/auto
set -o pipefail
t0=$(date +%s)
[ -x build-gpu/bin/amgt-solve ] || { scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
timeout -s INT 330 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/lg/summary.txt $OUT/large_summary.txt
sed -n '/Geometric mean/,$p' /tmp/lg/summary.txt | head -14
left=$(( 585 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-stats --no-plots --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1
echo "1M rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/m1/summary.txt $OUT/m1_summary.txt
sed -n '/Geometric mean/,$p' /tmp/m1/summary.txt | head -14
echo "total $(( $(date +%s) - t0 )) s"
