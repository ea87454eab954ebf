#!/bin/bash
# call 3 (a fresh machine): build with the F-F weights' block search and held weights and the
# row sums' short-row path; every GPU test; Nsight Compute of the two kernels (and the strength
# counts) at every size on laplace7 n=250 and laplace27 n=200, and the full section set on the
# F-F weights' first launch
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 220 ctest -j 8 -E "ij_compare_quick|run_sh|offline" --output-on-failure) > /tmp/ctest_all.log 2>&1
echo "ctest all rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" /tmp/ctest_all.log | head -20
cp /tmp/ctest_all.log $OUT/ctest_all.log
mkdir -p build-gpu/ncu_new
for p in "laplace7-n250:--problem laplace7 --n 250" "laplace27-n200:--problem laplace27 --n 200"; do
  AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='twiaff_kernel|row_sums_kernel|strength_kernel' timeout 70 bash bench/setup_kernels_ncu.sh build-gpu /tmp/ncu "$p" > /dev/null 2>&1
  echo "ncu ${p%%:*} rc $? at $(el) s"; cat /tmp/ncu/${p%%:*}.txt; cp /tmp/ncu/${p%%:*}.txt build-gpu/ncu_new/ $OUT/ 2>/dev/null
done
AMGT=fp64 AMGT_SETUP_KERNELS=1 timeout 60 ncu --set full --clock-control none --kernel-name-base function \
  --kernel-name "regex:^twiaff_kernel" --launch-count 1 -f -o /tmp/full_tw \
  build-gpu/bin/amgt-solve --problem laplace7 --n 250 --solver amg --max-iter 1 --repeat 0 > /tmp/ncu_tw.log 2>&1
echo "ncu full rc $? at $(el) s"
ncu -i /tmp/full_tw.ncu-rep --page details > $OUT/full_twiaff_kernel.txt 2>&1
grep -E "Duration|Executed Instructions   |Registers Per|Achieved Occupancy|No Eligible" $OUT/full_twiaff_kernel.txt | head -8
echo "end $(el) s"
