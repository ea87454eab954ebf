#!/bin/bash
# record 2026-11-27c, device call 4: ncu of the hashed conversion (the library's fp16/fp32 copies) on systems3 n=126 level 0 A and laplace7 n=250 level 1 A
set -o pipefail
t0=$(date +%s)
if [ ! -x build-gpu/bin/amgt-solve ]; then scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }; fi
echo "build $(( $(date +%s) - t0 )) s"
S="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis"
AMGT=auto AMGT_PRELOAD=0 timeout 150 /usr/local/cuda/bin/ncu $S -k regex:hashed_kernel --launch-count 3 build-gpu/bin/amgt-solve --problem systems3 --n 126 --solver pcg --repeat 1 > $OUT/ncu_hashed_s3_126.txt 2>&1
echo "ncu s3 rc $? at $(( $(date +%s) - t0 )) s"
AMGT=auto AMGT_PRELOAD=0 timeout 200 /usr/local/cuda/bin/ncu $S -k regex:hashed_kernel --launch-count 3 build-gpu/bin/amgt-solve --problem laplace7 --n 250 --solver pcg --repeat 1 > $OUT/ncu_hashed_l7_250.txt 2>&1
echo "ncu l7 rc $? at $(( $(date +%s) - t0 )) s"
for f in $OUT/ncu_hashed_*.txt; do echo "## $f"; grep -E "hashed_kernel<|Duration|Memory Throughput|DRAM Throughput|Executed Ipc Active|Issue Slots Busy|Theoretical Occupancy|Achieved Occupancy|Block Limit (Registers|Shared Mem)|Registers Per Thread|No Eligible|Warp Cycles Per Issued|  Grid Size" $f | cut -c1-140 | head -60; done
echo "total $(( $(date +%s) - t0 )) s"
