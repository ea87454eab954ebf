#!/bin/bash
# call 1 (a fresh machine): build; the GPU tests of the kernels changed (the strength counts'
# groups of 8 lanes for mean rows of 9-32, the F-F weights a thread a row) and of the driver;
# Nsight Compute on the two kernels in a setup of laplace7 n=250 and laplace27 n=200 (every
# size, AMGT_SETUP_KERNELS=1, as records 2026-11-29f/g/j); then the large and the 1M cases
# side by side, one process a mode; everything back in one archive
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=/tmp/w; rm -rf $W; mkdir -p $W
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 100 ctest -j 8 -R "RowSums|Strength|Twiaff|Timing|DriverModes|driver_modes" --output-on-failure) > $W/ctest_kernels.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $W/ctest_kernels.log | head -20
mkdir -p $W/ncu
AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='strength|twiaff' timeout $(( 330 - $(el) )) bench/setup_kernels_ncu.sh build-gpu $W/ncu \
  "laplace7-n250:--problem laplace7 --n 250" "laplace27-n200:--problem laplace27 --n 200" > $W/ncu/run.txt 2>&1
echo "ncu rc $? at $(el) s"; grep -E "strength|twiaff" $W/ncu/*.txt | cut -c1-200
rm -f $W/ncu/*.ncu-rep
export AMGT_BUILD_DIR=build-gpu
timeout 80 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 2 --rounds 1 --no-plots --no-stats --timeout 60 --out /tmp/lg > $W/large.log 2>&1
echo "large rc $? at $(el) s"; cp /tmp/lg/runs.jsonl $W/large_runs.jsonl; cp /tmp/lg/summary.txt $W/large_summary.txt; grep -A4 "^Geometric mean" /tmp/lg/summary.txt
timeout $(( 585 - $(el) )) ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto,mixed --repeat 2 --rounds 1 --no-plots --no-stats --timeout 60 --out /tmp/m1 > $W/m1.log 2>&1
echo "1m rc $? at $(el) s"; cp /tmp/m1/runs.jsonl $W/m1_runs.jsonl; cp /tmp/m1/summary.txt $W/m1_summary.txt; grep -A5 "^Geometric mean" /tmp/m1/summary.txt
tar -cJf $OUT/call1.tar.xz -C $W .
echo "end $(el) s"
