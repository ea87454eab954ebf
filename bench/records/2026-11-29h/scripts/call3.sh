#!/bin/bash
# call 3 (the same machine and build): the cold batches resumed (call 2's two batches pooled
# first), then the large and the 1M cases, one process a mode (`--rounds 1`), within one call
t0=$(date +%s); export AMGT_BUILD_DIR=build-gpu
LIMIT=430 TAG=h2 RESUME="$(ls build-gpu/cold_h/batch*/run/runs.jsonl | tr '\n' ' ')" bash bench/records/2026-11-29g/scripts/call2.sh | grep -vE "^\s+\S+\s+(fp64|auto|mixed)\s"
echo "cold at $(( $(date +%s)-t0 )) s"
timeout 75 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 2 --rounds 1 --no-plots --no-stats --timeout 60 --out /tmp/lg > /tmp/lg.log 2>&1
echo "large rc $? at $(( $(date +%s)-t0 )) s"; cp /tmp/lg/runs.jsonl $OUT/large_runs.jsonl; cp /tmp/lg/summary.txt $OUT/large_summary.txt
timeout $(( 585 - $(date +%s) + t0 )) ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto,mixed --repeat 2 --rounds 1 --no-plots --no-stats --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1
echo "1m rc $? at $(( $(date +%s)-t0 )) s"; cp /tmp/m1/runs.jsonl $OUT/m1_runs.jsonl; cp /tmp/m1/summary.txt $OUT/m1_summary.txt; ls $OUT
