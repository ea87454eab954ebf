#!/bin/bash
# record 2026-11-26d, device call 7: ncu of the entries kernel on laplace7 n=250's level-1 A inside an auto PCG solve (preload off so the first launches are the setup's/solve's)
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
AMGT=auto AMGT_PRELOAD=0 timeout 300 ncu --clock-control none -k regex:spmv_entries_kernel --launch-skip 6 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section SourceCounters \
  -o /tmp/rep build-gpu/bin/amgt-solve --problem laplace7 --n 250 --solver pcg --repeat 1 > /tmp/ncu.log 2>&1; echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
ncu -i /tmp/rep.ncu-rep --print-details all > $OUT/ncu_entries_l1a_details.txt 2>&1
grep -E "Grid Size|Block Size|Duration|DRAM Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Achieved Occupancy|Theoretical Occupancy|Registers Per|Issued Ipc|Warp Cycles Per Issued|Stall Long|Stall|Mem Busy|Max Bandwidth|dram__bytes|L2 Compression|Eligible|No Eligible" $OUT/ncu_entries_l1a_details.txt | head -40
ncu -i /tmp/rep.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/ncu_entries_l1a_sass.csv.gz
echo "total $(( $(date +%s) - t0 )) s"
