#!/bin/bash
# record 2026-11-26h, device call 3: the survey's kernels in the preload: GPU tests, the preload test, kprof of first setups, 1M cold/warm
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 100 ctest -R "Preload|DriverModes|Survey" -j 4 --output-on-failure) > $OUT/ctest_preload.log 2>&1; echo "ctest preload rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_preload.log | head
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
for c in "aniso7 100" "laplace27 100"; do for m in fp64 auto; do
  set -- $c
  AMGT=$m AMGT_STATS=1 LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 1 > /tmp/o.txt 2>&1
  echo "## $1 $2 AMGT=$m $(grep -E '^  cold' /tmp/o.txt)" >> $OUT/cold_kprof.txt
  grep -E "loaded on a second thread" /tmp/o.txt >> $OUT/cold_kprof.txt
  python3 .carry/cold.py /tmp/k.tsv 0 >> $OUT/cold_kprof.txt 2>&1
done; done
grep -E "^##|loaded on|plugin kernels first|== setup 0" $OUT/cold_kprof.txt | cut -c1-200
echo "kprof done at $(( $(date +%s) - t0 )) s"
for o in hypre sorted; do
  timeout 60 build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace7:250 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp64 --hierarchy-order $o > /tmp/kb.txt 2>&1; echo "kb fp64 $o rc $? at $(( $(date +%s) - t0 )) s"
  { grep -E "^AMG hierarchy|unsorted columns" /tmp/kb.txt; sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt; } > $OUT/kb_l7_250_fp64_$o.txt
done
export AMGT_BUILD_DIR=build-gpu
left=$(( 570 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 3 --rounds 3 --no-stats --no-plots --timeout 60 --out $OUT/m1 > /tmp/m1.log 2>&1
echo "1M rc $? at $(( $(date +%s) - t0 )) s"
rm -rf $OUT/m1/logs
sed -n '/Geometric mean/,$p' $OUT/m1/summary.txt | head -20
echo "total $(( $(date +%s) - t0 )) s"
