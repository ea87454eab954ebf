#!/bin/bash
# call 3 (call 1's machine): the rewritten F-F weights (twiaff) and PMIS sweep kernels built
# into build-gpu (the strength kernel kept as committed); their GPU tests; Nsight Compute of the
# two on laplace7 n=250 and laplace27 n=200 (fp64); call 1's four low pairs with five processes
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
cp .carry/pristine/strength_device.cu plugin/coarsen/strength_device.cu
cmake --build build-gpu -j 16 > /tmp/rebuild.log 2>&1 || { grep -E "error" /tmp/rebuild.log | head; tail -20 /tmp/rebuild.log; exit 1; }
echo "rebuild $(el) s"
(cd build-gpu && timeout 120 ctest -R "Twiaff|Pmis|PMIS|twiaff|pmis|Selection\.SetupKernels" -j 8 --output-on-failure) > $OUT/ctest_k.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|\(Failed\)" $OUT/ctest_k.log | head
for p in "laplace7-n250:--problem laplace7 --n 250" "laplace27-n200:--problem laplace27 --n 200"; do
  AMGT=fp64 NCU_KERNELS='twiaff_kernel|indep_set_kernel|update_cf_kernel' timeout 150 bash bench/setup_kernels_ncu.sh build-gpu /tmp/ncu "$p" > /dev/null 2>&1
  echo "ncu ${p%%:*} rc $? at $(el) s"; cat /tmp/ncu/${p%%:*}.txt
done
cp /tmp/ncu/*.txt $OUT/ 2>/dev/null
grep -E "^(Muu|jnlbrng1|laplace27-n22|jump7-n31)	" bench/cases_small.tsv > /tmp/low4.tsv
timeout $(( 585 - $(el) )) python3 bench/beside_stock.py --build build-gpu --cases /tmp/low4.tsv --matrices .carry/matrices \
  --modes fp64,auto,mixed --procs 5 --repeat 4 --timeout 60 --deadline $(( 575 - $(el) )) --json $OUT/bs_low4.json > $OUT/bs_low4.txt 2>&1
echo "beside low4 rc $? at $(el) s"; tail -18 $OUT/bs_low4.txt
echo "end $(el) s"
