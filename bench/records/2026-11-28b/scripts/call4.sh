#!/bin/bash
# call 4 (warm after call 3): the jump sequence of bench/cases_steps_large.tsv
export AMGT_BUILD_DIR=build-gpu; grep -E "^jump7-n200-jump" bench/cases_steps_large.tsv > /tmp/l3.tsv; timeout -s INT 300 ./scripts/run.sh --no-build --cases /tmp/l3.tsv --modes stock,auto-resetup --repeat 1 --no-plots --no-stats --timeout 200 --out /tmp/l3 > /tmp/l3.log 2>&1; echo rc $?; cp /tmp/l3/summary.txt $OUT/steps_large3_summary.txt; cp /tmp/l3/runs.jsonl $OUT/steps_large3_runs.jsonl; grep -E "^  (stock|auto-resetup) " /tmp/l3/summary.txt | cut -c1-200
