#!/bin/bash
# record 2026-11-26c, device call 4: the entries SpMV kernel: ncu (fp32, laplace27 n=200 fine A), then variants (unroll 4/8, L1 prefetch of the tile columns) on fp32 and fp64
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
KB="build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace27:200 --device-only --setup-products 0 --repeat 5 --warmup 1"
timeout 120 ncu --clock-control none -k regex:spmv_entries_kernel --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats --section SourceCounters \
  -o /tmp/rep $KB --precision fp32 --repeat 1 --warmup 0 > /tmp/ncu_run.log 2>&1; echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
ncu -i /tmp/rep.ncu-rep --print-details all > $OUT/ncu_entries_details.txt 2>&1
ncu -i /tmp/rep.ncu-rep --page source --csv --print-source sass > /tmp/sass.csv 2>&1; gzip -c /tmp/sass.csv > $OUT/ncu_entries_sass.csv.gz
grep -E "Duration|Memory Throughput|DRAM Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Theoretical Occupancy|Issued Warp|Stall|Registers Per" $OUT/ncu_entries_details.txt | head -40
run_variant() {
  echo "== variant $1 at $(( $(date +%s) - t0 )) s"
  for p in fp32 fp64; do
    timeout 90 $KB --precision $p > /tmp/kb.txt 2>&1; echo "kbench $p rc $?"
    grep -E "cuSPARSE .* ours" /tmp/kb.txt | head -1
    sed -n '/== SpMV  y = A/,/^$/p' /tmp/kb.txt | grep -E "^laplace27_n200 " | cut -c1-260
  done
}
F=plugin/spmv/spmv_kernels.cuh
run_variant "unroll4"
sed -i 's/constexpr bool kEntriesPrefetchTiles = false;/constexpr bool kEntriesPrefetchTiles = true;/' $F; (cd build-gpu && ninja > /tmp/ninja.log 2>&1) || tail -20 /tmp/ninja.log
run_variant "unroll4+prefetch"
sed -i 's/constexpr int  kEntriesUnroll        = 4;/constexpr int  kEntriesUnroll        = 8;/' $F; (cd build-gpu && ninja > /tmp/ninja.log 2>&1) || tail -20 /tmp/ninja.log
run_variant "unroll8+prefetch"
sed -i 's/constexpr bool kEntriesPrefetchTiles = true;/constexpr bool kEntriesPrefetchTiles = false;/' $F; (cd build-gpu && ninja > /tmp/ninja.log 2>&1) || tail -20 /tmp/ninja.log
run_variant "unroll8"
echo "total $(( $(date +%s) - t0 )) s"
