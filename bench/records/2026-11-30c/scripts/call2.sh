#!/bin/bash
# call 2 (a fresh machine): the F-F weights' paired path (twiaff_paired.diff: diag_a filled
# with a mark, a kernel that searches only for the entries above the diagonal and writes each
# found pair's two values, then the weights kernel reading them) built with amgt-solve and its
# GPU test; the test, under compute-sanitizer memcheck too; Nsight Compute on laplace7 n=250,
# laplace27 n=200, systems3 n=126 (the three kernels' launches); then the kernel as committed
# rebuilt and measured the same way
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=$OUT/call2; mkdir -p $W
AMGT_TARGETS="amgt-solve test_twiaff_device" scripts/offline_build.sh .carry build-gpu > $W/build.log 2>&1 || { grep -E "error" $W/build.log | head -20; tail -30 $W/build.log; exit 1; }
echo "build $(el) s"
f=plugin/interp/twiaff_device.cu
P="laplace7-n250:--problem laplace7 --n 250"; Q="laplace27-n200:--problem laplace27 --n 200"; R="systems3-n126:--problem systems3 --n 126"
tw=$(find build-gpu -name test_twiaff_device -type f -perm -u+x | head -1)
measure() { # label
  timeout 60 $tw > $W/test_$1.log 2>&1; echo "test $1 rc $? at $(el) s: $(grep -E "PASSED|FAILED" $W/test_$1.log | tr '\n' ' ')"
  mkdir -p $W/ncu_$1
  AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='twiaff|fill_unpaired' timeout 150 bench/setup_kernels_ncu.sh build-gpu $W/ncu_$1 "$P" "$Q" "$R" > $W/ncu_$1/run.txt 2>&1
  echo "ncu $1 rc $? at $(el) s"; grep -E "twiaff|fill_unpaired|launches" $W/ncu_$1/*-n*.txt | sed 's#.*/##' | cut -c1-150; rm -f $W/ncu_$1/*.ncu-rep
}
measure paired
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $tw > $W/memcheck_paired.log 2>&1
echo "memcheck rc $? at $(el) s: $(grep -E "ERROR SUMMARY|PASSED|FAILED" $W/memcheck_paired.log | tr '\n' ' ')"
cp .carry/variants/twiaff_base.cu $f
cmake --build build-gpu --target amgt-solve test_twiaff_device > $W/rebuild_base.log 2>&1; echo "rebuild base rc $? at $(el) s"
measure base
cp .carry/variants/twiaff_paired.cu $f
tar -cJf $OUT/call2.tar.xz -C $OUT call2 && rm -rf $W
echo "end $(el) s"
