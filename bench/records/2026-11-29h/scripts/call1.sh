#!/bin/bash
# call 1 (a fresh machine): build (the row-wise builds' offset flag read at the first SpMV, not
# waited for in the setup; the row sums' rows of at most an entry a lane); every GPU test; Nsight
# Compute of the row sums, weak row sums, diagonal and truncation kernels at every size on
# laplace7 n=250 and laplace27 n=200; kprof of warm setups at 1M rows (host API counts: issue 41
# item 4) in stock, fp64 and auto
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 230 ctest -j 8 -E "ij_compare_quick|run_sh|offline" --output-on-failure) > /tmp/ctest_all.log 2>&1
echo "ctest all rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" /tmp/ctest_all.log | head -20
mkdir -p /tmp/o
cp /tmp/ctest_all.log /tmp/o/
for p in "laplace7-n250:--problem laplace7 --n 250" "laplace27-n200:--problem laplace27 --n 200"; do
  AMGT=fp64 NCU_KERNELS='row_sums_kernel|weak_row_sums_kernel|csr_diag_kernel|trunc_copy_kernel' timeout 80 bash bench/setup_kernels_ncu.sh build-gpu /tmp/ncu "$p" > /dev/null 2>&1
  echo "ncu ${p%%:*} rc $? at $(el) s"; cat /tmp/ncu/${p%%:*}.txt; cp /tmp/ncu/${p%%:*}.txt /tmp/ncu/${p%%:*}.csv /tmp/o/ 2>/dev/null
done
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -L$CU/extras/CUPTI/lib64 -lcupti -ldl -o /tmp/libkprof.so || exit 1
for p in "laplace7 100" "laplace27 100"; do set -- $p
  for mode in off fp64 auto; do
    env AMGT=$mode LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/sync_$1_$mode.tsv timeout 60 build-gpu/bin/amgt-solve --problem $1 --n $2 --solver pcg --repeat 2 > /tmp/o/sync_$1_$mode.log 2>&1
    python3 .carry/kprof/report.py /tmp/sync_$1_$mode.tsv --phase 'AMGSetup' --top 25 > /tmp/o/sync_$1_${mode}_setup.txt 2>&1
    echo "sync $1 $mode at $(el) s"
  done
done
grep -hE "^phase|wall|Synchronize|Memcpy" /tmp/o/sync_laplace7_*_setup.txt | head -40
tar cJf $OUT/call1.tar.xz -C /tmp o
echo "end $(el) s"
