#!/bin/bash
# record 2026-11-26d, device call 10: final code: GPU tests, the rule's picks on laplace7 n=250 (fp32 levels), large cases stock/fp64/auto
set -o pipefail
t0=$(date +%s)
touch plugin/spmv/spmv_kernels.cuh plugin/rows/rows_device.cu plugin/device/warp.cuh
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"; grep -c "load_stream" plugin/spmv/spmv_kernels.cuh
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
timeout 60 build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace7:250 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp32 > /tmp/kb.txt 2>&1; echo "kbench rc $?"
sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt > $OUT/kbench_levels_l7_250_fp32.txt; grep -E "^laplace" $OUT/kbench_levels_l7_250_fp32.txt | awk '$4+0 >= 2000000' | cut -c1-160
export AMGT_BUILD_DIR=build-gpu
left=$(( 560 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --no-stats --no-plots --timeout 120 --out $OUT/large > /tmp/large.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"
rm -rf $OUT/large/logs
grep -vE '^\[|^run ' /tmp/large.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode " | head -40
echo "total $(( $(date +%s) - t0 )) s"
