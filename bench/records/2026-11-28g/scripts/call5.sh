#!/bin/bash
# call 5: the GPU build with AMGT_SETUP_KERNELS on by default and three more of hypre's setup
# kernels replaced (row sums, weak row sums, the truncation's copy: patch 0008); their GPU tests
# first, then every GPU test and the integration tests; AMGT_STATS; ncu of the plugin's setup
# kernels on laplace7 n=250. Leaves build-gpu/sk_tests_passed when every test passed.
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
rm -f sk_tests_passed
timeout 90 ctest -R "RowSums|Truncation|Twiaff|Strength|Pmis" -j 8 --output-on-failure > $OUT/ctest_sk.log 2>&1; r1=$?; echo "ctest setup kernels rc $r1 at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|against|error" $OUT/ctest_sk.log | head -30
timeout 150 ctest -L gpu -j 8 --output-on-failure > $OUT/ctest_gpu.log 2>&1; r2=$?; echo "ctest gpu rc $r2 at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head -12
timeout 120 ctest -R "Selection\.|Environment\." -j 8 --output-on-failure > $OUT/ctest_sel.log 2>&1; r3=$?; echo "ctest selected rc $r3 at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\[ residual \]" $OUT/ctest_sel.log | head -12
[ $r1 = 0 ] && [ $r2 = 0 ] && [ $r3 = 0 ] && touch sk_tests_passed
cd ..
for p in "laplace7 --n 100" "systems3 --n 69"; do
  f=$OUT/stats_$(echo $p | tr -d ' -').txt
  AMGT=fp64 AMGT_STATS=1 timeout 40 build-gpu/bin/amgt-solve --problem $p --solver pcg --repeat 1 > $f 2>&1
  echo "stats $p rc $?"; grep -iE "setup kernels run|iterations, rel" $f | head -4
done
AMGT=fp64 NCU_KERNELS='row_sums|trunc_copy|strength_kernel|twiaff_kernel|indep_set|update_cf' timeout 120 bench/setup_kernels_ncu.sh build-gpu $OUT/ncu "laplace7-n250:--problem laplace7 --n 250" > /tmp/ncu.log 2>&1
echo "ncu rc $? at $(el) s"; cat $OUT/ncu/*.txt 2>/dev/null | head -14; rm -f $OUT/ncu/*.ncu-rep $OUT/ncu/*.csv
echo "end $(el) s"
