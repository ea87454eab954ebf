#!/bin/bash
# record 2026-11-26b, device call 8 (right after call 7, warm): run.sh on the large cases (stock, fp64, auto)
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
left=$(( 580 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1; echo "large rc $? at $(( $(date +%s) - t0 )) s"
cp /tmp/lg/runs.jsonl $OUT/large_runs.jsonl; cp /tmp/lg/summary.txt $OUT/large_summary.txt; tail -5 /tmp/lg.log
echo "total $(( $(date +%s) - t0 )) s"
