#!/bin/bash
# record 2026-11-26c, device call 1: one-pass conversion + row-wise build lanes: GPU tests, kernel bench (conversion one vs two passes), kprof of warm setups
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 60 ctest -R "DeviceConversion|EntryOrder|RowsDevice" --output-on-failure) > $OUT/ctest_conv.log 2>&1; echo "ctest conv rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_conv.log | head
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_gpu.log | head
timeout 150 build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace7:250 --problem systems3:126 --device-only --setup-products 1 --repeat 3 --warmup 1 > /tmp/kb.txt 2>&1; echo "kbench rc $? at $(( $(date +%s) - t0 )) s"
sed -n '/== Conversion/,/^geometric/p' /tmp/kb.txt > $OUT/kbench_conv.txt; cat $OUT/kbench_conv.txt
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
for c in "systems3 126" "laplace7 250"; do set -- $c
 for m in fp64 auto; do
  AMGT=$m LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 1 > /dev/null 2>&1
  echo "## $1 $2 $m" >> $OUT/kprof_amgt.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase 'AMGSetup' --top 60 | awk '/== phase/{n++} n==2' | grep -E "== phase|by category|amgt|host API" >> $OUT/kprof_amgt.txt 2>&1
 done
done
echo "kprof $(( $(date +%s) - t0 )) s"
grep -E "^##|by category|hashed|tier0|compact" $OUT/kprof_amgt.txt
echo "total $(( $(date +%s) - t0 )) s"
