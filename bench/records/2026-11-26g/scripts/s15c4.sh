#!/bin/bash
# record 2026-11-26g, device call 4: 449511b end to end, large cases, two processes a mode, with hypre's default configuration
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
R="./scripts/run.sh --no-build --no-stats --no-plots --timeout 120"
left=$(( 570 - ($(date +%s) - t0) ))
timeout -s INT $left $R --cases bench/cases_large.tsv --modes stock,stock-default,fp64,auto --repeat 3 --rounds 2 --out $OUT/large > /tmp/large.log 2>&1; echo "large rc $? at $(( $(date +%s) - t0 )) s"
grep -vE '^\[|^run ' /tmp/large.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode |hypre" | head -70
rm -rf $OUT/*/logs
echo "total $(( $(date +%s) - t0 )) s"
