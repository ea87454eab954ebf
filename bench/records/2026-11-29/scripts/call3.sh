#!/bin/bash
# call 4: build (the plan's rule: places where B's rows are short, else search); the re-setup's
# GPU tests; the four large sequences, stock and auto-resetup
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 60 ctest -R "ResetupDevice" -j 6 --output-on-failure > $OUT/ctest_resetup.log 2>&1); echo "ctest rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is" $OUT/ctest_resetup.log | head -20
export AMGT_BUILD_DIR=build-gpu
grep -vE "^#" bench/cases_steps_large.tsv > /tmp/s4.tsv
timeout -s INT $(( 588 - $(el) )) ./scripts/run.sh --no-build --cases /tmp/s4.tsv --modes stock,auto-resetup --repeat 1 --no-plots --no-stats --timeout 150 --out /tmp/s4 > /tmp/s4.log 2>&1
echo "steps rc $? at $(el) s"; cp /tmp/s4/summary.txt $OUT/steps4_summary.txt 2>/dev/null; cp /tmp/s4/runs.jsonl $OUT/steps4_runs.jsonl 2>/dev/null
grep -E "^  (stock|auto-resetup) +ok +[0-9]+\.[0-9] " /tmp/s4/summary.txt | cut -c1-180 | head -12
echo "end $(el) s"
