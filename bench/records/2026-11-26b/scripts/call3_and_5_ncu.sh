#!/bin/bash
# record 2026-11-26b, calls 3 and 5: ncu of the hashed conversion kernels (call 3: --launch-count 16 from the start; call 5, as here, the 4 launches from the 9th)
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
S=build-gpu/bin/amgt-solve
which ncu; ncu --version | tail -1
export AMGT=fp64 AMGT_PRELOAD=0
timeout 200 ncu --clock-control none -k regex:hashed_kernel --launch-skip 8 --launch-count 4 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section SourceCounters \
  -o /tmp/rep $S --problem systems3 --n 64 --solver pcg --repeat 1 > $OUT/ncu_run.log 2>&1; echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
ncu -i /tmp/rep.ncu-rep --print-details all > $OUT/ncu_details.txt 2>&1
ncu -i /tmp/rep.ncu-rep --page source --csv --print-source sass > /tmp/sass.csv 2>&1; echo "sass rc $?"; wc -l /tmp/sass.csv
gzip -c /tmp/sass.csv > $OUT/sass.csv.gz
ncu -i /tmp/rep.ncu-rep --page raw --csv > /tmp/raw.csv 2>&1; gzip -c /tmp/raw.csv > $OUT/raw.csv.gz
echo "total $(( $(date +%s) - t0 )) s"
