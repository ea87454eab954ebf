#!/bin/bash
# record 2026-11-26f, device call 1: build; large cases stock / auto / auto-h / auto-hs (finest level's V-cycle fp16)
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
left=$(( 585 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,auto,auto-hs,auto-h --repeat 3 --no-stats --no-plots --timeout 120 --out $OUT/large > /tmp/large.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"
rm -rf $OUT/large/logs
grep -E "^\[" /tmp/large.log | cut -c1-200
grep -vE '^\[|^run ' /tmp/large.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode " | head -40
echo "total $(( $(date +%s) - t0 )) s"
