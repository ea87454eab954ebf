#!/bin/bash
# record 2026-11-26f, device call 4: large cases, two processes a mode, with hypre's default configuration
set -o pipefail
t0=$(date +%s)
[ -x build-gpu/bin/amgt-solve ] || { scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
left=$(( 580 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --no-stats --no-plots --timeout 120 --cases bench/cases_large.tsv --modes stock,stock-default,fp64,auto --repeat 3 --rounds 2 --out $OUT/large > /tmp/large.log 2>&1; echo "large rc $? at $(( $(date +%s) - t0 )) s"
rm -rf $OUT/large/logs $OUT/large/runs.csv
grep -vE '^\[|^run ' /tmp/large.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode |hypre default" | head -60
echo "total $(( $(date +%s) - t0 )) s"
