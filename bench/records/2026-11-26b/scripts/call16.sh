#!/bin/bash
# record 2026-11-26b, device call 16: lanes doubled where x passes L2: GPU tests, kernel bench laplace27 n=200, run.sh large
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_gpu.log | head
for p in fp64 fp32; do
 timeout 100 build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace27:200 --device-only --setup-products 0 --repeat 5 --warmup 1 --precision $p > /tmp/kb_$p.txt 2>&1; echo "kbench $p rc $?"
 sed -n '/== SpMV per layout/,/^$/p' /tmp/kb_$p.txt > $OUT/kbench_layout_laplace27_200_$p.txt
done
export AMGT_BUILD_DIR=build-gpu
left=$(( 585 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1; echo "large rc $? at $(( $(date +%s) - t0 )) s"
cp /tmp/lg/runs.jsonl $OUT/large_runs.jsonl; cp /tmp/lg/summary.txt $OUT/large_summary.txt; grep -A4 "^Geometric mean" /tmp/lg/summary.txt
echo "total $(( $(date +%s) - t0 )) s"
