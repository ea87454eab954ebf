#!/bin/bash
# call 1 (a fresh machine): everything built; every test but the benchmark scripts' on the GPU;
# Nsight Compute on the F-F weights' launches (laplace7 n=250, laplace27 n=200, systems3 n=126)
# for the kernel as committed and for the group search (each row j scanned by the row's group
# together, .carry/variants/twiaff_coop.cu) at 8, 4 and 2 entries a lane, each rebuilt and
# tested first (memcheck on the first); the committed kernel put back and rebuilt at the end
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=$OUT/call1; mkdir -p $W
scripts/offline_build.sh .carry build-gpu > $W/build.log 2>&1 || { grep -E "error" $W/build.log | head -20; tail -30 $W/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 200 ctest -j 8 -E "ij_compare_quick|run_sh|offline" --output-on-failure) > $W/ctest_all.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $W/ctest_all.log | head -20
f=plugin/interp/twiaff_device.cu; cp $f /tmp/twiaff_base.cu
P="laplace7-n250:--problem laplace7 --n 250"; Q="laplace27-n200:--problem laplace27 --n 200"; R="systems3-n126:--problem systems3 --n 126"
tw=$(find build-gpu -name test_twiaff_device -type f -perm -u+x | head -1)
variant() { # label [memcheck]
  timeout 60 $tw > $W/test_$1.log 2>&1; echo "test $1 rc $? at $(el) s: $(grep -E "PASSED|FAILED" $W/test_$1.log | tr '\n' ' ')"
  if [ -n "$2" ]; then timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $tw > $W/memcheck_$1.log 2>&1; echo "memcheck $1 rc $?: $(grep -E "ERROR SUMMARY|PASSED" $W/memcheck_$1.log | tr '\n' ' ')"; fi
  mkdir -p /tmp/ncu_$1
  AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='twiaff' timeout 150 bench/setup_kernels_ncu.sh build-gpu /tmp/ncu_$1 "$P" "$Q" "$R" > $W/ncu_$1_run.txt 2>&1
  echo "ncu $1 rc $? at $(el) s"; for x in /tmp/ncu_$1/*-n*.txt; do cp $x $W/ncu_$1_$(basename $x); done; grep -E "twiaff" /tmp/ncu_$1/*-n*.txt | cut -c1-170
}
variant base
for v in coop8:8:x coop4:4: coop2:2:; do
  IFS=: read label epl mc <<< "$v"
  sed "s/constexpr int kEntriesPerLane = 8;/constexpr int kEntriesPerLane = $epl;/" .carry/variants/twiaff_coop.cu > $f
  grep -c "kEntriesPerLane = $epl;" $f
  cmake --build build-gpu --target amgt-solve test_twiaff_device > $W/rebuild_$label.log 2>&1; echo "rebuild $label rc $? at $(el) s"
  variant $label $mc
done
cp /tmp/twiaff_base.cu $f
cmake --build build-gpu --target amgt-solve test_twiaff_device > $W/rebuild_back.log 2>&1; echo "rebuild back rc $? at $(el) s"
echo "end $(el) s"
