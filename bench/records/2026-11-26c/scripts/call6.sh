#!/bin/bash
# record 2026-11-26c, device call 6: entries kernel A (early b + tile prefetch) with one-pass conversion and flat stats: run.sh large, then 1M interleaved rounds
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
timeout -s INT 200 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1; echo "large rc $? at $(( $(date +%s) - t0 )) s"
cp /tmp/lg/runs.jsonl $OUT/large_runs.jsonl; cp /tmp/lg/summary.txt $OUT/large_summary.txt; grep -B2 -A12 "^Geometric mean" /tmp/lg/summary.txt
left=$(( 590 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 5 --rounds 6 --no-stats --no-plots --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1; echo "1m rc $? at $(( $(date +%s) - t0 )) s"
cp /tmp/m1/runs.jsonl $OUT/m1_runs.jsonl 2>/dev/null; cp /tmp/m1/summary.txt $OUT/m1_summary.txt 2>/dev/null; cp /tmp/m1/processes.jsonl $OUT/m1_processes.jsonl 2>/dev/null; grep -A12 "^Geometric mean" /tmp/m1/summary.txt; tail -5 /tmp/m1.log
echo "total $(( $(date +%s) - t0 )) s"
