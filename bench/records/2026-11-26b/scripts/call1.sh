#!/bin/bash
# record 2026-11-26b, device call 1: build, conversion tests, GPU tests, kprof of setups, conversion bandwidth
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 120 ctest -R "DeviceConversion|EntryOrder|RowsDevice" -j 4 --output-on-failure) > $OUT/ctest_conv.log 2>&1; echo "ctest conv rc $?"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_conv.log | head
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_gpu.log | head
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
for c in "laplace27 100" "laplace7 160" "systems3 126" "laplace7 250"; do set -- $c
 for m in fp64 auto; do
  AMGT=$m LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv $S --problem $1 --n $2 --solver pcg --repeat 1 > /dev/null 2>&1
  echo "## $1 $2 $m" >> $OUT/kprof_amgt.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase 'AMGSetup' --top 60 | awk '/== phase/{n++} n==2' | grep -E "== phase|by category|amgt" >> $OUT/kprof_amgt.txt 2>&1
 done
done
echo "kprof done $(( $(date +%s) - t0 )) s"
left=$(( 570 - ($(date +%s) - t0) ))
timeout $left build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace7:250 --problem systems3:126 --problem laplace27:100 --device-only --setup-products 1 --repeat 3 --warmup 1 > $OUT/kbench_spmv.txt 2>&1; echo "kbench rc $? at $(( $(date +%s) - t0 )) s"
echo "total $(( $(date +%s) - t0 )) s"
