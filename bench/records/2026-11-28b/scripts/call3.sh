#!/bin/bash
# call 3 (warm after call 2): the other two dt sequences of bench/cases_steps_large.tsv
export AMGT_BUILD_DIR=build-gpu; grep -E "^(laplace27-n200-dt|jump7-n200-dt)" bench/cases_steps_large.tsv > /tmp/l2.tsv; timeout -s INT 470 ./scripts/run.sh --no-build --cases /tmp/l2.tsv --modes stock,auto-resetup --repeat 1 --no-plots --no-stats --timeout 200 --out /tmp/l2 > /tmp/l2.log 2>&1; echo rc $?; cp /tmp/l2/summary.txt $OUT/steps_large2_summary.txt; cp /tmp/l2/runs.jsonl $OUT/steps_large2_runs.jsonl; grep -E "^  (stock|auto-resetup) " /tmp/l2/summary.txt | cut -c1-200
