#!/bin/bash
# call 2: build; the re-setup's GPU tests (pulls, places); the Galerkin products in their three
# forms (kernel bench); the two dt sequences of laplace7 n=250 and laplace27 n=200
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 150 ctest -R "ResetupDevice|Resetup\.|Steps" -j 6 --output-on-failure > $OUT/ctest_resetup.log 2>&1; echo "ctest rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|\[ places" $OUT/ctest_resetup.log | head -30
cd ..
timeout 170 build-gpu/bin/amgt-kernel-bench --only galerkin --problem laplace7:250 --repeat 5 > $OUT/kbench_galerkin.txt 2>&1; echo "kbench rc $? at $(el) s"
grep -E "plan .* ms, AP|^laplace|total at|FAIL|fail" $OUT/kbench_galerkin.txt | cut -c1-300 | head -24
export AMGT_BUILD_DIR=build-gpu
grep -E "^(laplace7-n250-dt|laplace27-n200-dt)	" bench/cases_steps_large.tsv > /tmp/s2.tsv
left=$(( 585 - $(el) )); [ $left -gt 60 ] || exit 0
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/s2.tsv --modes stock,auto-resetup --repeat 1 --no-plots --no-stats --timeout 150 --out /tmp/s2 > /tmp/s2.log 2>&1
echo "steps rc $? at $(el) s"; cp /tmp/s2/summary.txt $OUT/steps2_summary.txt 2>/dev/null; cp /tmp/s2/runs.jsonl $OUT/steps2_runs.jsonl 2>/dev/null
grep -E "^  (stock|auto-resetup) +ok +[0-9]" /tmp/s2/summary.txt | cut -c1-180 | head -12
echo "end $(el) s"
