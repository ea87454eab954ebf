#!/bin/bash
# call 1 (a fresh machine): build with the F-F weights' diagonal entries taken a batch at a time
# (diag_terms: kThreadBatch 4, kGroupBatch 2); the kernels' GPU tests and the F-F weights' test
# under compute-sanitizer; Nsight Compute on laplace7 n=250, laplace27 n=200, systems3 n=126 for
# that and for batches (2, 4), (4, 4), and for the kernel as committed before (twiaff_head.cu);
# then the batched build put back
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=/tmp/w1; rm -rf $W; mkdir -p $W
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 120 ctest -j 8 -R "Twiaff|Strength|RowSums|DriverModes|driver_modes" --output-on-failure) > $W/ctest_kernels.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $W/ctest_kernels.log | head -20
tw=$(find build-gpu -name test_twiaff_device -type f -perm -u+x | head -1)
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $tw > $W/memcheck_twiaff.log 2>&1
echo "memcheck rc $? at $(el) s"; grep -E "ERROR SUMMARY|PASSED|FAILED" $W/memcheck_twiaff.log | head -5
f=plugin/interp/twiaff_device.cu; cp $f /tmp/twiaff.bak
P="laplace7-n250:--problem laplace7 --n 250"; Q="laplace27-n200:--problem laplace27 --n 200"; R="systems3-n126:--problem systems3 --n 126"
ncu_run() { # label
  mkdir -p $W/ncu_$1
  AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='twiaff' timeout 100 bench/setup_kernels_ncu.sh build-gpu $W/ncu_$1 "$P" "$Q" "$R" > $W/ncu_$1/run.txt 2>&1
  echo "ncu $1 rc $? at $(el) s"; grep -E "twiaff" $W/ncu_$1/*-n*.txt | cut -c1-200; rm -f $W/ncu_$1/*.ncu-rep
}
ncu_run t4g2
for v in "2 4" "4 4"; do
  set -- $v
  cp /tmp/twiaff.bak $f
  sed -i "s/constexpr int kThreadBatch = 4;/constexpr int kThreadBatch = $1;/; s/constexpr int kGroupBatch  = 2;/constexpr int kGroupBatch  = $2;/" $f
  grep -E "constexpr int k(Thread|Group)Batch" $f
  cmake --build build-gpu --target amgt-solve test_twiaff_device > $W/rebuild_t$1g$2.log 2>&1; echo "rebuild t$1g$2 rc $? at $(el) s"
  (cd build-gpu && timeout 60 ctest -R "Twiaff" --output-on-failure) > $W/ctest_t$1g$2.log 2>&1
  echo "ctest t$1g$2 rc $? at $(el) s"; grep -E "tests passed|tests failed" $W/ctest_t$1g$2.log
  ncu_run t$1g$2
done
cp .carry/twiaff_head.cu $f
cmake --build build-gpu --target amgt-solve > $W/rebuild_head.log 2>&1; echo "rebuild head rc $? at $(el) s"
ncu_run head
cp /tmp/twiaff.bak $f; cmake --build build-gpu > $W/rebuild_back.log 2>&1; echo "rebuild back rc $? at $(el) s"
tar -cJf $OUT/call1.tar.xz -C $W .
echo "end $(el) s"
