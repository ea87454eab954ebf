#!/bin/bash
# record 2026-11-26d, device call 6 (warm, chained after call 5): the five 1M-row problems, 4 rounds
set -o pipefail
t0=$(date +%s)
export AMGT_BUILD_DIR=build-gpu
timeout -s INT 560 ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 5 --rounds 4 --no-stats --no-plots --timeout 120 --out $OUT/m1 > /tmp/m1.log 2>&1
echo "1M rc $? at $(( $(date +%s) - t0 )) s"
rm -rf $OUT/m1/logs
grep -vE '^\[|^run ' /tmp/m1.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|spread|mode " | head -60
