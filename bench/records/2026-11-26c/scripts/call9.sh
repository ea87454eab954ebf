#!/bin/bash
# record 2026-11-26c, device call 9: final code (d2b4... + compaction kernels looked up once): run.sh large with 3 interleaved rounds, 1M with 4 rounds
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
timeout -s INT 260 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --rounds 3 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1; echo "large rc $? at $(( $(date +%s) - t0 )) s"
cp /tmp/lg/runs.jsonl $OUT/large_runs.jsonl; cp /tmp/lg/summary.txt $OUT/large_summary.txt; cp /tmp/lg/processes.jsonl $OUT/large_processes.jsonl; grep -A5 "^Geometric mean" /tmp/lg/summary.txt; grep -A4 "^Cold:" /tmp/lg/summary.txt
left=$(( 592 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 5 --rounds 4 --no-stats --no-plots --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1; echo "1m rc $? at $(( $(date +%s) - t0 )) s"
cp /tmp/m1/runs.jsonl $OUT/m1_runs.jsonl 2>/dev/null; cp /tmp/m1/summary.txt $OUT/m1_summary.txt 2>/dev/null; cp /tmp/m1/processes.jsonl $OUT/m1_processes.jsonl 2>/dev/null; grep -A5 "^Geometric mean" /tmp/m1/summary.txt; grep -A4 "^Cold:" /tmp/m1/summary.txt
echo "total $(( $(date +%s) - t0 )) s"
