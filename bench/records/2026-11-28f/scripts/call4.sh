#!/bin/bash
# call 4 (build-gpu of call 3 kept): the cold verdict on the cases below 0.95 cold in record
# 2026-11-28e, many processes a case and mode (run.sh --rounds), stock, fp64, auto
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
[ -x build-gpu/bin/amgt-solve ] || { echo "no build"; exit 1; }
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv | grep -E "^(aft01|bcsstk16|fv3|laplace7-n22|systems3-n15|aniso7-n22)	" > /tmp/six.tsv
cut -f1 /tmp/six.tsv | tr '\n' ' '; echo
timeout -s INT ${1:-380} ./scripts/run.sh --no-build --cases /tmp/six.tsv --modes stock,fp64,auto --repeat 1 --rounds 8 --no-plots --no-stats --timeout 60 --out /tmp/cold > /tmp/cold.log 2>&1
echo "cold rc $? at $(el) s"; cp /tmp/cold/summary.txt $OUT/cold_summary.txt 2>/dev/null; cp /tmp/cold/runs.jsonl $OUT/cold_runs.jsonl 2>/dev/null; tail -3 /tmp/cold.log
grep -iE "cold" -A14 /tmp/cold/summary.txt | head -40
echo "end $(el) s"
