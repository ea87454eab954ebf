#!/bin/bash
# call 4 (the final code): build; the re-setup's GPU tests (the plan's automatic form restored to
# places or search, the pulls opt-in and by the segmented kernel only; the forms on long rows);
# the Galerkin products in every form on laplace7 n=250 (kernel bench)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 60 ctest -R "ResetupDevice|Resetup\.|Steps\." -j 8 --output-on-failure > $OUT/ctest_resetup.log 2>&1; echo "ctest rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|\[ places|\[ plan" $OUT/ctest_resetup.log | head -30
cd ..
left=$(( 370 - $(el) )); [ $left -gt 30 ] || exit 0
timeout $left build-gpu/bin/amgt-kernel-bench --only galerkin --problem laplace7:250 --repeat 5 --json $OUT/kbench_laplace7_250.jsonl > $OUT/kbench_laplace7_250.txt 2>&1; echo "kbench rc $? at $(el) s"
grep -E "plan .* ms, AP|total at|FAIL|fail" $OUT/kbench_laplace7_250.txt | cut -c1-300 | head -12
echo "end $(el) s"
