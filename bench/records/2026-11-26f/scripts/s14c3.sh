#!/bin/bash
# record 2026-11-26f, device call 3: lossless fp16 storage under auto, end to end: large (one setup + one solve, and ten solves), 1M
set -o pipefail
t0=$(date +%s)
[ -x build-gpu/bin/amgt-solve ] || { scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
R="./scripts/run.sh --no-build --no-stats --no-plots --timeout 120"
timeout -s INT 200 $R --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --out $OUT/large > /tmp/large.log 2>&1; echo "large rc $? at $(( $(date +%s) - t0 )) s"
grep -vE '^\[|^run ' /tmp/large.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode " | head -40
timeout -s INT 150 $R --cases bench/cases_large.tsv --modes stock,auto --repeat 2 --solves 10 --out $OUT/solves10 > /tmp/s10.log 2>&1; echo "solves10 rc $? at $(( $(date +%s) - t0 )) s"
grep -A4 "^Geometric" /tmp/s10.log | head -12
left=$(( 570 - ($(date +%s) - t0) ))
timeout -s INT $left $R --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 5 --rounds 2 --out $OUT/m1 > /tmp/m1.log 2>&1; echo "1m rc $? at $(( $(date +%s) - t0 )) s"
grep -vE '^\[|^run ' /tmp/m1.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode " | head -50
rm -rf $OUT/*/logs
echo "total $(( $(date +%s) - t0 )) s"
