#!/bin/bash
# call 3: build; the re-setup's GPU tests (the plan's automatic form now the pulls, the per-entry
# pulls kernel gone; the rule where the pulls refuse); the Galerkin products on laplace7 n=250 and
# laplace27 n=200 (kernel bench); the two dt sequences (stock, auto-resetup) while time is left
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 120 ctest -R "ResetupDevice|Resetup\.|Steps\." -j 6 --output-on-failure > $OUT/ctest_resetup.log 2>&1; echo "ctest rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|\[ places|\[ plan" $OUT/ctest_resetup.log | head -30
cd ..
for prob in laplace7:250 laplace27:200; do
  f=$(echo $prob | tr : _)
  timeout 150 build-gpu/bin/amgt-kernel-bench --only galerkin --problem $prob --repeat 5 --json $OUT/kbench_$f.jsonl > $OUT/kbench_$f.txt 2>&1; echo "kbench $prob rc $? at $(el) s"
  grep -E "plan .* ms, AP|total at|FAIL|fail" $OUT/kbench_$f.txt | cut -c1-300 | head -12
done
export AMGT_BUILD_DIR=build-gpu
grep -E "^(laplace7-n250-dt|laplace27-n200-dt)	" bench/cases_steps_large.tsv > /tmp/s2.tsv
left=$(( 500 - $(el) )); [ $left -gt 60 ] || exit 0
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/s2.tsv --modes stock,auto-resetup --repeat 1 --no-plots --no-stats --timeout 150 --out /tmp/s2 > /tmp/s2.log 2>&1
echo "steps rc $? at $(el) s"; cp /tmp/s2/summary.txt $OUT/steps_summary.txt 2>/dev/null; cp /tmp/s2/runs.jsonl $OUT/steps_runs.jsonl 2>/dev/null
grep -E "per step|^  (stock|auto-resetup) +ok +[0-9]" /tmp/s2/summary.txt | cut -c1-200 | head -12
echo "end $(el) s"
