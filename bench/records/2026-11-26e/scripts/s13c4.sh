#!/bin/bash
# record 2026-11-26e, device call 4: lean SpGEMM with one warp per row: tests, then 1M cases end to end
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 60 ./bin/test_csr_spgemm_device) > $OUT/test_csr_spgemm_device.log 2>&1; echo "csr device rc $?"; grep -E "PASSED|FAILED|Failure" $OUT/test_csr_spgemm_device.log | head -20
(cd build-gpu && timeout 200 ctest -L integration -j 4 --output-on-failure) > $OUT/ctest_integration.log 2>&1; echo "ctest integration rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_integration.log | head
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
export AMGT_BUILD_DIR=build-gpu
left=$(( 580 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 5 --rounds 2 --no-stats --no-plots --timeout 100 --out $OUT/m1 > /tmp/m1.log 2>&1
echo "1M rc $? at $(( $(date +%s) - t0 )) s"
rm -rf $OUT/m1/logs
grep -vE '^\[|^run ' /tmp/m1.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode " | head -40
echo "total $(( $(date +%s) - t0 )) s"
