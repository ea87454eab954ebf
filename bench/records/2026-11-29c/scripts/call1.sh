#!/bin/bash
# call 1: build; the re-setup's GPU tests (the refused places, the device pulls without counts,
# the places' dealt walk: both walks against the reference); the Galerkin products with each
# product by places in both walks (kernel bench); ncu of the product kernels on level 0
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 90 ctest -R "ResetupDevice|Resetup\.|Steps\." -j 8 --output-on-failure > $OUT/ctest_resetup.log 2>&1; echo "ctest rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|\[ places" $OUT/ctest_resetup.log | head -30
cd ..
timeout 150 build-gpu/bin/amgt-kernel-bench --only galerkin --problem laplace7:250 --repeat 5 --json $OUT/kbench_laplace7_250.jsonl > $OUT/kbench_laplace7_250.txt 2>&1; echo "kbench rc $? at $(el) s"
grep -E "plan .* ms, AP|by places:|total at|FAIL|fail" $OUT/kbench_laplace7_250.txt | cut -c1-300 | head -16
left=$(( 530 - $(el) )); [ $left -gt 40 ] || exit 0
timeout $left ncu --kernel-name regex:"places_|numeric_kernel" --launch-count 40 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
  --section LaunchStats --section SchedulerStats \
  build-gpu/bin/amgt-kernel-bench --only galerkin --problem laplace7:250 --repeat 1 --warmup 0 > $OUT/ncu_l7_250.txt 2>&1
echo "ncu rc $? at $(el) s: $(grep -c '^  [a-z_]*kernel' $OUT/ncu_l7_250.txt) kernels"
grep -E "^  [a-z_]+kernel|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Issued Warp" $OUT/ncu_l7_250.txt | head -60
echo "end $(el) s"
