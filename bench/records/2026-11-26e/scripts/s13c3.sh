#!/bin/bash
# record 2026-11-26e, device call 3: the lean SpGEMM design: GPU tests, sanitizer, kernel bench on small and 1M-row setups
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 60 ./bin/test_csr_spgemm_device) > $OUT/test_csr_spgemm_device.log 2>&1; echo "csr device rc $?"; grep -E "PASSED|FAILED|Failure" $OUT/test_csr_spgemm_device.log | head -20
(cd build-gpu && timeout 150 compute-sanitizer --tool memcheck --leak-check full ./bin/test_csr_spgemm_device --gtest_filter='*Lean*:*Refused*:*AmgProductsSmall*') > $OUT/memcheck.log 2>&1; echo "memcheck rc $?"; grep -E "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED" $OUT/memcheck.log | head
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 200 ctest -L integration -j 4 --output-on-failure) > $OUT/ctest_integration.log 2>&1; echo "ctest integration rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_integration.log | head
for p in "laplace7:40" "laplace7:100" "laplace27:100" "systems3:69"; do
  t=${p/:/_}
  timeout 100 build-gpu/bin/amgt-kernel-bench --only spgemm --problem $p --repeat 5 --warmup 1 > $OUT/kbench_$t.txt 2>&1; echo "kbench $p rc $? at $(( $(date +%s) - t0 )) s"
  grep -E "rows lean|rows one_pass +vs hypre|auto's pick|binned mode" $OUT/kbench_$t.txt
done
echo "total $(( $(date +%s) - t0 )) s"
