#!/bin/bash
# record 2026-11-26d, device call 4: the re-fitted layout rule: GPU tests, SpMV per level (fp64 / fp32), large cases end to end (+ hypre default, + 10 solves)
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
KB=build-gpu/bin/amgt-kernel-bench
kbl() { # problem precision tag
  timeout 100 $KB --only spmv --problem $1 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision $2 > /tmp/kb.txt 2>&1; echo "kbench $1 $2 rc $? at $(( $(date +%s) - t0 )) s"
  sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt > $OUT/kbench_levels_$3.txt; grep -E "^(laplace|systems)" $OUT/kbench_levels_$3.txt | head -7 | cut -c1-215
}
kbl laplace7:250 fp64 l7_250_fp64
kbl systems3:126 fp64 s3_126_fp64
kbl laplace27:200 fp32 l27_200_fp32
export AMGT_BUILD_DIR=build-gpu
left=$(( 560 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,stock-default,fp64,auto --repeat 3 --no-stats --no-plots --timeout 120 --out $OUT/large > /tmp/large.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"
grep -vE '^\[|^run ' /tmp/large.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|vs hypre|mode " | head -60
left=$(( 590 - ($(date +%s) - t0) ))
[ $left -gt 70 ] && { timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,auto --repeat 2 --solves 10 --no-stats --no-plots --timeout 120 --out $OUT/solves10 > /tmp/s10.log 2>&1; echo "solves10 rc $? at $(( $(date +%s) - t0 )) s"; grep -vE '^\[|^run ' /tmp/s10.log | tail -14; }
rm -rf $OUT/large/logs $OUT/solves10/logs
echo "total $(( $(date +%s) - t0 )) s"
