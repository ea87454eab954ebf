#!/bin/bash
# record 2026-11-27c, device call 1: GPU tests of 5be2557, kprof of systems3 n=126 auto setups, large one setup + ten solves
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 100 ctest -R "Preload|DriverModes|Survey|Precision|AutoVsFp64" -j 4 --output-on-failure) > $OUT/ctest_more.log 2>&1; echo "ctest more rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_more.log | head
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
for m in auto stock; do
  if [ $m = stock ]; then E="env -u AMGT"; else E="env AMGT=$m AMGT_STATS=1"; fi
  $E LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k_$m.tsv timeout 60 build-gpu/bin/amgt-solve --problem systems3 --n 126 --solver pcg --repeat 2 > $OUT/s3_$m.txt 2>&1; echo "kprof s3 $m rc $? at $(( $(date +%s) - t0 )) s"
  gzip -c /tmp/k_$m.tsv > $OUT/k_s3_$m.tsv.gz
done
grep -E "plugin setup work|  time" $OUT/s3_*.txt | cut -c1-220
export AMGT_BUILD_DIR=build-gpu
left=$(( 560 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --solves 10 --repeat 3 --rounds 1 --no-stats --no-plots --timeout 150 --out /tmp/lg > /tmp/lg.log 2>&1
echo "large solves10 rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/lg/summary.txt $OUT/large10_summary.txt
sed -n '/Geometric mean/,/^$/p' /tmp/lg/summary.txt | head -8
grep -E "^[a-z]|  (stock|fp64|auto) " /tmp/lg/summary.txt | cut -c1-150 | head -20
echo "total $(( $(date +%s) - t0 )) s"
