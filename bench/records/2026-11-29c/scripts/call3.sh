#!/bin/bash
# call 3 (the final code): build; the re-setup's GPU tests (the long-rows plan's test mended); the
# three dt sequences of bench/cases_steps_large.tsv, stock against auto-resetup (the products by
# places wherever they fit, in the walk the rule picks)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 90 ctest -R "ResetupDevice|Resetup\.|Steps\." -j 8 --output-on-failure > $OUT/ctest_resetup.log 2>&1; echo "ctest rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|\[ plan" $OUT/ctest_resetup.log | head -30
cd ..
export AMGT_BUILD_DIR=build-gpu
grep -E "^(laplace7-n250-dt|laplace27-n200-dt|jump7-n200-dt)	" bench/cases_steps_large.tsv > /tmp/s3.tsv
left=$(( 560 - $(el) )); [ $left -gt 60 ] || exit 0
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/s3.tsv --modes stock,auto-resetup --repeat 1 --no-plots --no-stats --timeout 170 --out /tmp/s3 > /tmp/s3.log 2>&1
echo "steps rc $? at $(el) s"; cp /tmp/s3/summary.txt $OUT/steps_summary.txt 2>/dev/null; cp /tmp/s3/runs.jsonl $OUT/steps_runs.jsonl 2>/dev/null
grep -E "per step|re-setup|^  (stock|auto-resetup) +ok +[0-9]" /tmp/s3/summary.txt | cut -c1-200 | head -20
echo "end $(el) s"
