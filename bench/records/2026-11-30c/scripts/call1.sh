#!/bin/bash
# call 1 (a fresh machine): amgt-solve and the F-F weights' GPU test built; Nsight Compute on
# laplace7 n=250, laplace27 n=200, systems3 n=126 (the F-F weights' launches only) for the
# kernel as committed and for two variants of it, each rebuilt and tested first: v1, a lane's
# next entry's row range and the column after it loaded a turn ahead (twiaff_pipelined.diff);
# v1b, the same with __launch_bounds__(256, 5) (48 registers, no cap of 40); the SASS of each
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=$OUT/call1; mkdir -p $W
AMGT_TARGETS="amgt-solve test_twiaff_device" scripts/offline_build.sh .carry build-gpu > $W/build.log 2>&1 || { grep -E "error" $W/build.log | head -20; tail -30 $W/build.log; exit 1; }
echo "build $(el) s"
f=plugin/interp/twiaff_device.cu; cp $f /tmp/twiaff_base.cu
P="laplace7-n250:--problem laplace7 --n 250"; Q="laplace27-n200:--problem laplace27 --n 200"; R="systems3-n126:--problem systems3 --n 126"
obj=$(find build-gpu -name "twiaff_device.cu.o" | head -1)
variant() { # label
  tw=$(find build-gpu -name test_twiaff_device -type f -perm -u+x | head -1)
  timeout 60 $tw > $W/test_$1.log 2>&1; echo "test $1 rc $? at $(el) s: $(grep -E "PASSED|FAILED" $W/test_$1.log | tr '\n' ' ')"
  cuobjdump -sass "$obj" > $W/sass_$1.txt 2>/dev/null; cuobjdump -res-usage "$obj" 2>/dev/null | grep -A1 twiaff | grep -oE "REG:[0-9]+ STACK:[0-9]+" | tr '\n' ' '; echo
  mkdir -p $W/ncu_$1
  AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='twiaff' timeout 150 bench/setup_kernels_ncu.sh build-gpu $W/ncu_$1 "$P" "$Q" "$R" > $W/ncu_$1/run.txt 2>&1
  echo "ncu $1 rc $? at $(el) s"; grep -E "twiaff" $W/ncu_$1/*-n*.txt | cut -c1-160; rm -f $W/ncu_$1/*.ncu-rep
}
variant base
for v in v1 v1b; do
  cp .carry/variants/twiaff_$v.cu $f
  cmake --build build-gpu --target amgt-solve test_twiaff_device > $W/rebuild_$v.log 2>&1; echo "rebuild $v rc $? at $(el) s"
  variant $v
done
cp /tmp/twiaff_base.cu $f
echo "end $(el) s"
