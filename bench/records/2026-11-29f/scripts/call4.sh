#!/bin/bash
# call 4 (call 1's machine): call 3's rebuild again with the two rewritten sources touched (call
# 3's ninja kept call 1's objects: the copied sources were older); their GPU tests; Nsight
# Compute of the two kernels at every size (AMGT_SETUP_KERNELS=1, as record 2026-11-28g's table)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
cp .carry/pristine/strength_device.cu plugin/coarsen/strength_device.cu
grep -c "kSlots" plugin/coarsen/pmis_device.cu; grep -c "last_match" plugin/interp/twiaff_device.cu
touch plugin/coarsen/pmis_device.cu plugin/interp/twiaff_device.cu
cmake --build build-gpu -j 16 > /tmp/rebuild.log 2>&1 || { grep -E "error" /tmp/rebuild.log | head; tail -20 /tmp/rebuild.log; exit 1; }
echo "rebuild $(el) s"; grep -cE "Building CUDA" /tmp/rebuild.log
(cd build-gpu && timeout 120 ctest -R "Twiaff|Pmis|PMIS|twiaff|pmis|Selection\.SetupKernels" -j 8 --output-on-failure) > $OUT/ctest_k.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|\(Failed\)" $OUT/ctest_k.log | head
for p in "laplace7-n250:--problem laplace7 --n 250" "laplace27-n200:--problem laplace27 --n 200"; do
  AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='twiaff_kernel|indep_set_kernel|update_cf_kernel' timeout 150 bash bench/setup_kernels_ncu.sh build-gpu /tmp/ncu "$p" > /dev/null 2>&1
  echo "ncu ${p%%:*} rc $? at $(el) s"; cat /tmp/ncu/${p%%:*}.txt
done
cp /tmp/ncu/*.txt $OUT/ 2>/dev/null
echo "end $(el) s"
