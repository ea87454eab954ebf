#!/bin/bash
# record 2026-11-27c, device call 2: plain_stats with four loads a lane, AMGT_STATS work per setup: GPU tests, kprof s3n126 auto, 1M auto anatomy
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 100 ctest -R "Preload|DriverModes|Survey|Precision|AutoVsFp64" -j 4 --output-on-failure) > $OUT/ctest_more.log 2>&1; echo "ctest more rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_more.log | head
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
run() { # name problem n mode
  if [ $4 = stock ]; then E="env -u AMGT"; else E="env AMGT=$4 AMGT_STATS=1"; fi
  $E LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 build-gpu/bin/amgt-solve --problem $2 --n $3 --solver pcg --repeat 2 > /tmp/o.txt 2>&1; echo "kprof $1 rc $? at $(( $(date +%s) - t0 )) s"
  gzip -c /tmp/k.tsv > /tmp/kp/k_$1.tsv.gz; { echo "## $1"; cat /tmp/o.txt; } >> $OUT/stats.txt
}
mkdir -p /tmp/kp
run s3_auto systems3 126 auto
run s3_stock systems3 126 stock
run l27_100_auto laplace27 100 auto
run l27_100_fp64 laplace27 100 fp64
run l27_100_stock laplace27 100 stock
run j7_100_auto jump7 100 auto
run j7_100_stock jump7 100 stock
(cd /tmp/kp && tar czf $OUT/kprof.tgz *.tsv.gz)
for c in "laplace7 250" "laplace27 200"; do set -- $c
  AMGT=auto AMGT_STATS=1 timeout 60 build-gpu/bin/amgt-solve --problem $1 --n $2 --solver pcg --repeat 2 > /tmp/o.txt 2>&1; echo "stats $c rc $?"; { echo "## $1 $2 auto"; cat /tmp/o.txt; } >> $OUT/stats.txt
done
grep -E "^## |  time|  result|plugin setup work" $OUT/stats.txt | cut -c1-230
echo "total $(( $(date +%s) - t0 )) s"
