#!/bin/bash
# call 3: build; the GPU tests; the driver's selection tests (the random numbers' reset, the
# beside-stock test's iteration lists now compared); ncu of laplace27 n=200's setup kernels
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 8 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head -12
(cd build-gpu && timeout 120 ctest -R "Selection\.|KernelImages|Environment\." -j 8 --output-on-failure) > $OUT/ctest_sel.log 2>&1; echo "ctest selected rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\*\*\*" $OUT/ctest_sel.log | head -12
build-gpu/bin/amgt-solve --problem laplace27 --n 31 --solver pcg --repeat 6 --json | tail -1 | grep -oE '"(level_nnz|random_reset|setup_all)":[^]]*\]?' 
left=$(( 400 - $(el) ))
[ $left -gt 100 ] && NCU_KERNELS='twiaff|CreateS|PMIS|IndepSet|RowSum|Trunc|weak_rowsums|ExtractDiag|MoveDiag|DeviceSelectSweep|spgemm|SpGemm' timeout $left bench/setup_kernels_ncu.sh build-gpu $OUT/ncu "laplace27-n200:--problem laplace27 --n 200" > /tmp/ncu.log 2>&1
echo "ncu rc $? at $(el) s"; tail -20 /tmp/ncu.log; rm -f $OUT/ncu/*.ncu-rep
echo "end $(el) s"
