#!/bin/bash
# call 5 (a fresh machine): amgt-solve and the F-F weights' GPU test built; Nsight Compute on
# the F-F weights' launches (laplace7 n=250, laplace27 n=200, systems3 n=126) for the kernel as
# committed and for pairs of lanes searching a row j together (.carry/variants/twiaff_sub.cu:
# kSearchLanes = 2 within the committed groups, then with groups twice as wide), each rebuilt
# and tested first (memcheck on the first); the committed kernel put back at the end
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=$OUT/call5; mkdir -p $W
AMGT_TARGETS="amgt-solve test_twiaff_device" scripts/offline_build.sh .carry build-gpu > $W/build.log 2>&1 || { grep -E "error" $W/build.log | head -20; tail -30 $W/build.log; exit 1; }
echo "build $(el) s"
f=plugin/interp/twiaff_device.cu; cp $f /tmp/twiaff_base.cu
P="laplace7-n250:--problem laplace7 --n 250"; Q="laplace27-n200:--problem laplace27 --n 200"; R="systems3-n126:--problem systems3 --n 126"
tw=$(find build-gpu -name test_twiaff_device -type f -perm -u+x | head -1)
variant() { # label [memcheck]
  timeout 60 $tw > $W/test_$1.log 2>&1; echo "test $1 rc $? at $(el) s: $(grep -E "PASSED|FAILED" $W/test_$1.log | tr '\n' ' ')"
  if [ -n "$2" ]; then timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 $tw > $W/memcheck_$1.log 2>&1; echo "memcheck $1 rc $?: $(grep -E "ERROR SUMMARY|PASSED" $W/memcheck_$1.log | tr '\n' ' ')"; fi
  mkdir -p /tmp/ncu_$1
  AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='twiaff' timeout 150 bench/setup_kernels_ncu.sh build-gpu /tmp/ncu_$1 "$P" "$Q" "$R" > /tmp/ncu_$1/run.txt 2>&1
  echo "ncu $1 rc $? at $(el) s"; grep -E "twiaff" /tmp/ncu_$1/*-n*.txt | cut -c1-170
}
variant base
for v in sub2:8:x sub2w:4:; do
  IFS=: read label epl mc <<< "$v"
  sed "s/constexpr int kEntriesPerLane = 8;/constexpr int kEntriesPerLane = $epl;/" .carry/variants/twiaff_sub.cu > $f
  grep -c "kEntriesPerLane = $epl;" $f
  cmake --build build-gpu --target amgt-solve test_twiaff_device > /tmp/rebuild_$label.log 2>&1; echo "rebuild $label rc $? at $(el) s"
  variant $label $mc
done
cp /tmp/twiaff_base.cu $f
echo "end $(el) s"
