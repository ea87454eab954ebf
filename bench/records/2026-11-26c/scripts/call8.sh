#!/bin/bash
# record 2026-11-26c, device call 8: final evidence: conversion tests, kprof of warm setups (4 large cases x fp64/auto), AMGT_STATS laplace27 n=200 auto, SpMV per layout on the large fine A (fp64, fp32) and laplace7 n=250's levels (fp32)
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 60 ctest -R "DeviceConversion|EntryOrder|DevicePrecision|Preload" --output-on-failure) > $OUT/ctest_conv.log 2>&1; echo "ctest conv rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_conv.log | head
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
for c in "laplace27 200" "laplace7 160" "systems3 126" "laplace7 250"; do set -- $c
 for m in off fp64 auto; do
  AMGT=$m LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 1 > /dev/null 2>&1
  echo "## $1 $2 $m" >> $OUT/kprof_amgt.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase 'AMGSetup' --top 60 | awk '/== phase/{n++} n==2' | grep -E "== phase|by category|amgt|host API" >> $OUT/kprof_amgt.txt 2>&1
 done
done
echo "kprof $(( $(date +%s) - t0 )) s"
grep -E "^##|== phase|by category" $OUT/kprof_amgt.txt
AMGT=auto AMGT_STATS=1 timeout 60 $S --problem laplace27 --n 200 --solver pcg --repeat 1 > $OUT/stats_laplace27_200_auto.txt 2>&1
grep -E "^ +[0-9] |plugin setup work|Krylov|iterations" $OUT/stats_laplace27_200_auto.txt
for pp in "laplace27:200 fp64" "laplace27:200 fp32" "laplace7:250 fp64" "laplace7:250 fp32" "systems3:126 fp64" "systems3:126 fp32"; do set -- $pp
  timeout 60 build-gpu/bin/amgt-kernel-bench --only spmv --problem $1 --device-only --setup-products 0 --repeat 5 --warmup 1 --precision $2 > /tmp/kb.txt 2>&1; echo "kbench $1 $2 rc $?"
  sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt > $OUT/kbench_layout_${1/:/_}_$2.txt; grep -E "^(laplace|systems)" $OUT/kbench_layout_${1/:/_}_$2.txt
done
left=$(( 590 - ($(date +%s) - t0) ))
timeout $left build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace7:250 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp32 > /tmp/kb.txt 2>&1; echo "kbench levels rc $? at $(( $(date +%s) - t0 )) s"
sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt > $OUT/kbench_layout_levels_laplace7_250_fp32.txt; cat $OUT/kbench_layout_levels_laplace7_250_fp32.txt | cut -c1-200
echo "total $(( $(date +%s) - t0 )) s"
