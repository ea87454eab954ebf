#!/bin/bash
# record 2026-11-26g, device call 5 (warm after call 4): 1M cases three processes a mode (survey on and off), one setup and ten solves on the large cases
set -o pipefail
t0=$(date +%s)
[ -x build-gpu/bin/amgt-solve ] || { scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
R="./scripts/run.sh --no-build --no-stats --no-plots --timeout 120"
timeout -s INT 130 $R --cases bench/cases_1m.tsv --modes stock,fp64,auto,auto-each --repeat 5 --rounds 3 --out $OUT/m1 > /tmp/m1.log 2>&1; echo "1m rc $? at $(( $(date +%s) - t0 )) s"
grep -vE '^\[|^run ' /tmp/m1.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode " | head -60
left=$(( 270 - ($(date +%s) - t0) ))
timeout -s INT $left $R --cases bench/cases_large.tsv --modes stock,auto --repeat 2 --solves 10 --out $OUT/s10 > /tmp/s10.log 2>&1; echo "solves10 rc $? at $(( $(date +%s) - t0 )) s"
grep -vE '^\[|^run ' /tmp/s10.log | grep -E "^[a-z].*\(|^  (stock|auto)|Geometric|mode " | head -40
rm -rf $OUT/*/logs $OUT/*/processes.jsonl $OUT/*/runs.csv
echo "total $(( $(date +%s) - t0 )) s"
