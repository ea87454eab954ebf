#!/bin/bash
# record 2026-11-26b, device call 15: the final conversion kernels: kprof of warm setups (fp64, auto) and ncu of the tier-2 passes
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
for c in "laplace27 100" "laplace7 160" "systems3 126" "laplace7 250"; do set -- $c
 for m in fp64 auto; do
  AMGT=$m LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv $S --problem $1 --n $2 --solver pcg --repeat 1 > /dev/null 2>&1
  echo "## $1 $2 $m" >> $OUT/kprof_amgt.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase 'AMGSetup' --top 60 | awk '/== phase/{n++} n==2' | grep -E "== phase|by category|amgt|host API" >> $OUT/kprof_amgt.txt 2>&1
 done
done
echo "kprof $(( $(date +%s) - t0 )) s"
export AMGT=fp64 AMGT_PRELOAD=0
timeout 150 ncu --clock-control none -k regex:hashed_kernel --launch-skip 4 --launch-count 8 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section SourceCounters \
  -o /tmp/rep $S --problem systems3 --n 64 --solver pcg --repeat 1 > /tmp/ncu_run.log 2>&1; echo "ncu rc $? at $(( $(date +%s) - t0 )) s"
ncu -i /tmp/rep.ncu-rep --print-details all > /tmp/ncu_details.txt 2>&1
grep -E "hashed_kernel|Duration|Instructions Executed  |Theoretical Occupancy  |Achieved Occupancy  |Stall (No Instruction|Wait|Branch|Short|Long|Barrier)|Compute \(SM\) Throughput|Registers Per Thread  |Issued Warp Per Scheduler  " /tmp/ncu_details.txt > $OUT/ncu_summary.txt
ncu -i /tmp/rep.ncu-rep --page source --csv --print-source sass > /tmp/sass.csv 2>&1; gzip -c /tmp/sass.csv > $OUT/sass.csv.gz
echo "total $(( $(date +%s) - t0 )) s"
