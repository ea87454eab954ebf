#!/bin/bash
# record 2026-11-26f, device call 2: lossless fp16 storage under auto: build, GPU and integration tests, one AMGT_STATS run
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 220 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 220 ctest -L integration -j 4 --output-on-failure) > $OUT/ctest_integration.log 2>&1; echo "ctest integration rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_integration.log | head
AMGT=auto AMGT_STATS=1 timeout 60 build-gpu/bin/amgt-solve --problem laplace7 --n 100 --solver pcg --repeat 1 > $OUT/stats_l7_100_auto.txt 2>&1
grep -E "why level|^ *[0-9]+ +[0-9]+ |outside the V-cycle|iterations" $OUT/stats_l7_100_auto.txt | head -20
echo "total $(( $(date +%s) - t0 )) s"
