#!/bin/bash
# record 2026-11-26d, device call 2: the row-wise kernel's lanes on every level (laplace7 n=250, systems3 n=126, fp32),
# ncu of the entries kernel on laplace7 n=250's level-1 A inside an auto solve
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
KB=build-gpu/bin/amgt-kernel-bench
kbl() { # problem alt tag
  timeout 150 $KB --only spmv --problem $1 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp32 --rows-lanes-alt $2 > /tmp/kb.txt 2>&1; echo "kbench $1 $2 rc $? at $(( $(date +%s) - t0 )) s"
  sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt > $OUT/kbench_levels_$3.txt; grep -E "^(laplace|systems)" $OUT/kbench_levels_$3.txt | awk '$6+0 >= 2000000' | cut -c1-215
}
kbl laplace7:250 4,16 l7_250_a4_16
kbl laplace7:250 8,32 l7_250_a8_32
kbl systems3:126 4,8 s3_126_a4_8
left=$(( 580 - ($(date +%s) - t0) )); echo "left $left s"
if [ $left -gt 90 ]; then
AMGT=auto timeout $left ncu --clock-control none -k regex:spmv_entries_kernel --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats \
  build-gpu/bin/amgt-solve --problem laplace7 --n 250 --solver pcg --repeat 1 > $OUT/ncu_entries_l1a.txt 2>&1; echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
grep -E "Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Registers Per|Issued Ipc|Stall Long|Warp Cycles Per Issued|Block Size|Grid Size|dram__bytes|Mem Busy|Max Bandwidth" $OUT/ncu_entries_l1a.txt | head -30
fi
echo "total $(( $(date +%s) - t0 )) s"
