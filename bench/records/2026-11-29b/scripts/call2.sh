#!/bin/bash
# call 2: build; the re-setup's GPU tests (the own-rows places kernel: both kinds of warp, the
# rule); the Galerkin products in every form on laplace7 n=250 and laplace27 n=200 (kernel bench)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 120 ctest -R "ResetupDevice|Resetup\.|Steps\." -j 6 --output-on-failure > $OUT/ctest_resetup.log 2>&1; echo "ctest rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|\[ places" $OUT/ctest_resetup.log | head -30
cd ..
for prob in laplace7:250 laplace27:200; do
  f=$(echo $prob | tr : _)
  timeout 170 build-gpu/bin/amgt-kernel-bench --only galerkin --problem $prob --repeat 5 --json $OUT/kbench_$f.jsonl > $OUT/kbench_$f.txt 2>&1; echo "kbench $prob rc $? at $(el) s"
  grep -E "plan .* ms, AP|total at|FAIL|fail" $OUT/kbench_$f.txt | cut -c1-300 | head -12
done
echo "end $(el) s"
