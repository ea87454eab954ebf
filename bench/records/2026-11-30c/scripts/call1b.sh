#!/bin/bash
# call 1b (chained on call 1's machine): Nsight Compute's full set on the first launch of the F-F
# weights' group kernel, laplace27 n=200 (the build left by call 1: variant v1b)
cmake --build build-gpu --target amgt-solve > /tmp/rb.log 2>&1; echo rb $?
AMGT=fp64 AMGT_SETUP_KERNELS=1 timeout 200 ncu --clock-control none --kernel-name-base function --kernel-name regex:twiaff_kernel \
  --launch-count 1 --set full -f -o $OUT/full27 build-gpu/bin/amgt-solve --problem laplace27 --n 200 --solver amg --max-iter 1 --repeat 0 > $OUT/full27.log 2>&1; echo ncu $?
ncu -i $OUT/full27.ncu-rep --page details > $OUT/full27_details.txt 2>&1
