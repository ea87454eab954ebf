#!/bin/bash
# call 4 (a fresh machine): build; the GPU tests of the kernels changed (the row sums' and the
# strength counts' thread-a-row kernels) and of the driver; Nsight Compute on the two kernels in
# a setup of laplace7 n=250 and laplace27 n=200 (every size, AMGT_SETUP_KERNELS=1, as records
# 2026-11-29f/g); then every GPU test while the call's time lasts
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 120 ctest -j 8 -R "RowSums|Strength|Selection|Timing|PreloadRule|Environment" --output-on-failure) > $OUT/ctest_kernels.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $OUT/ctest_kernels.log | head -20
mkdir -p /tmp/ncu
AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='row_sums|strength' timeout $(( 335 - $(el) )) bench/setup_kernels_ncu.sh build-gpu /tmp/ncu \
  "laplace7-n250:--problem laplace7 --n 250" "laplace27-n200:--problem laplace27 --n 200" > /tmp/ncu/run.txt 2>&1
echo "ncu rc $? at $(el) s"; grep -E "row_sums|strength|weak" /tmp/ncu/*.txt | cut -c1-200
rm -f /tmp/ncu/*.ncu-rep; tar -cJf $OUT/ncu.tar.xz -C /tmp ncu
(cd build-gpu && timeout $(( 468 - $(el) )) ctest -j 8 -E "ij_compare_quick|run_sh|offline" ) > $OUT/ctest_all.log 2>&1
echo "ctest all rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $OUT/ctest_all.log | head -20
echo "end $(el) s"
