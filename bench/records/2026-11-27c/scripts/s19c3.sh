#!/bin/bash
# record 2026-11-27c, device call 3: 7d298e5 end to end (large and 1M, two rounds), ncu of the coarse row-wise SpMVs, kernel bench laplace27 n=200 fp32
set -o pipefail
t0=$(date +%s)
if [ ! -x build-gpu/bin/amgt-solve ]; then scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }; fi
echo "build $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
timeout -s INT 200 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/lg/summary.txt $OUT/large_summary.txt
sed -n '/Geometric mean/,/^$/p' /tmp/lg/summary.txt | head -8
timeout -s INT 120 ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-stats --no-plots --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1
echo "1m rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/m1/summary.txt $OUT/m1_summary.txt
sed -n '/Geometric mean/,/^$/p' /tmp/m1/summary.txt | head -8
AMGT=auto AMGT_PRELOAD=0 timeout 120 /usr/local/cuda/bin/ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy -k regex:rows_spmv_kernel --launch-count 24 build-gpu/bin/amgt-solve --problem laplace27 --n 200 --solver pcg --repeat 1 > $OUT/ncu_rows_l27_200.txt 2>&1
echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
grep -E "rows_spmv_kernel|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|  Grid Size|Achieved Occupancy" $OUT/ncu_rows_l27_200.txt | head -80 | cut -c1-150
left=$(( 560 - ($(date +%s) - t0) ))
timeout $left build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace27:200 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp32 --hierarchy-order hypre > $OUT/kb_l27_200_fp32.txt 2>&1; echo "kb rc $? at $(( $(date +%s) - t0 )) s"
echo "total $(( $(date +%s) - t0 )) s"
