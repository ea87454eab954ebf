#!/bin/bash
# record 2026-11-27, device call 6: value statistics on one code path (the batched kernels for one matrix too): GPU tests, preload/survey tests, AMGT_STATS auto
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 150 ctest -R "Preload|DriverModes|Survey|Precision|AutoVsFp64" -j 4 --output-on-failure) > $OUT/ctest_more.log 2>&1; echo "ctest more rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_more.log | head
for c in "laplace7 250 auto" "systems3 126 auto"; do
  set -- $c
  AMGT=$3 AMGT_STATS=1 timeout 60 build-gpu/bin/amgt-solve --problem $1 --n $2 --solver pcg --repeat 2 > /tmp/o.txt 2>&1; echo "stats $c rc $? at $(( $(date +%s) - t0 )) s"
  { echo "## $c"; cat /tmp/o.txt; } >> $OUT/stats_large.txt
done
grep -E "^## |plugin setup work|  result|  time" $OUT/stats_large.txt | head -20
echo "total $(( $(date +%s) - t0 )) s"
