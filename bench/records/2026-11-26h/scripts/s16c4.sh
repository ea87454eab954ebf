#!/bin/bash
# record 2026-11-26h, device call 4: the SpMV's matrix streams loaded evict-first (load_once): SpMV tests, per-level tables (hypre's order), large cases end to end
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"; grep -c "AMGT_STREAM_LOADS 1" plugin/device/warp.cuh
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
kb() { # name order precision problem
  timeout 60 build-gpu/bin/amgt-kernel-bench --only spmv --problem $4 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision $3 --hierarchy-order $2 > /tmp/kb_$1.txt 2>&1; echo "kb $1 rc $? at $(( $(date +%s) - t0 )) s"
  { grep -E "^AMG hierarchy|unsorted columns" /tmp/kb_$1.txt; sed -n '/== SpMV per layout/,/^$/p' /tmp/kb_$1.txt; } > $OUT/kb_$1.txt
}
kb l7_250_fp32_hypre hypre fp32 laplace7:250
kb l27_200_fp32_hypre hypre fp32 laplace27:200
kb l7_250_fp64_hypre hypre fp64 laplace7:250
grep -E "^laplace" $OUT/kb_l7_250_fp32_hypre.txt | head -8 | cut -c1-150
export AMGT_BUILD_DIR=build-gpu
left=$(( 570 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --no-stats --no-plots --timeout 120 --out $OUT/large > /tmp/large.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"
rm -rf $OUT/large/logs $OUT/large/runs.csv $OUT/large/summary.json
grep -vE '^\[|^run ' /tmp/large.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto) |Geometric|mode " | head -40
echo "total $(( $(date +%s) - t0 )) s"
