#!/bin/bash
# record 2026-11-26d, device call 8: one setup and ten solves, large cases, final code (59fb047), stock vs auto vs fp64, 2 rounds
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
left=$(( 590 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 2 --solves 10 --rounds 2 --no-stats --no-plots --timeout 150 --out $OUT/solves10 > /tmp/s10.log 2>&1
echo "solves10 rc $? at $(( $(date +%s) - t0 )) s"
rm -rf $OUT/solves10/logs
grep -vE '^\[|^run ' /tmp/s10.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|spread|mode |solves" | head -50
