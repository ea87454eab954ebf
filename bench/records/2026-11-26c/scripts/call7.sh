#!/bin/bash
# record 2026-11-26c, device call 7: final kernels (one-pass conversion, flat stats, entries kernel with tile prefetch + early b, rows kernel early b): GPU tests, rows early-b A/B, run.sh large, 1M rounds
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_gpu.log | head
kb() {
  for p in fp64 fp32; do
    timeout 60 build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace27:200 --device-only --setup-products 0 --repeat 5 --warmup 1 --precision $p > /tmp/kb.txt 2>&1; echo "kbench $p rc $?"
    sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt | grep -E "^laplace27_n200 "
  done
}
echo "== rows kernel, b loaded first"; kb
F=plugin/rows/rows_device.cu
sed -i 's/constexpr bool kLoadBFirst = true;/constexpr bool kLoadBFirst = false;/' $F; touch $F; (cd build-gpu && ninja > /tmp/ninja.log 2>&1) || tail -20 /tmp/ninja.log
echo "== rows kernel, b after the reduction (before)"; kb
sed -i 's/constexpr bool kLoadBFirst = false;/constexpr bool kLoadBFirst = true;/' $F; touch $F; (cd build-gpu && ninja > /tmp/ninja.log 2>&1) || tail -20 /tmp/ninja.log
echo "rebuilt at $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
timeout -s INT 150 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1; echo "large rc $? at $(( $(date +%s) - t0 )) s"
cp /tmp/lg/runs.jsonl $OUT/large_runs.jsonl; cp /tmp/lg/summary.txt $OUT/large_summary.txt; grep -A5 "^Geometric mean" /tmp/lg/summary.txt; grep -A4 "^Cold:" /tmp/lg/summary.txt
left=$(( 592 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 5 --rounds 6 --no-stats --no-plots --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1; echo "1m rc $? at $(( $(date +%s) - t0 )) s"
cp /tmp/m1/runs.jsonl $OUT/m1_runs.jsonl 2>/dev/null; cp /tmp/m1/summary.txt $OUT/m1_summary.txt 2>/dev/null; cp /tmp/m1/processes.jsonl $OUT/m1_processes.jsonl 2>/dev/null; grep -A5 "^Geometric mean" /tmp/m1/summary.txt; grep -A4 "^Cold:" /tmp/m1/summary.txt
echo "total $(( $(date +%s) - t0 )) s"
