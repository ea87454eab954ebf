#!/bin/bash
# call 3 (a fresh machine): build; the F-F weights' and strength counts' GPU tests; the F-F
# weights under Nsight Compute with kEntriesPerLane 4 (the default), 2 and 8 (rebuilt for each,
# then put back; the strength counts and row sums, refactored, with the default); the large and
# 1M cases side by side, one process a mode
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=/tmp/w3; rm -rf $W; mkdir -p $W
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 60 ctest -j 8 -R "Twiaff|Strength|RowSums" --output-on-failure) > $W/ctest_kernels.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $W/ctest_kernels.log | head -20
f=plugin/interp/twiaff_device.cu; cp $f /tmp/twiaff.bak
for e in 4 2 8; do
  cp /tmp/twiaff.bak $f; sed -i "s/constexpr int kEntriesPerLane = 4;/constexpr int kEntriesPerLane = $e;/" $f
  cmake --build build-gpu --target amgt-solve > $W/rebuild_$e.log 2>&1; echo "rebuild $e rc $? at $(el) s"
  mkdir -p $W/ncu_$e
  k='twiaff'; [ $e = 4 ] && k='twiaff|strength|row_sums'
  AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS="$k" timeout 80 bench/setup_kernels_ncu.sh build-gpu $W/ncu_$e \
    "laplace7-n250:--problem laplace7 --n 250" "laplace27-n200:--problem laplace27 --n 200" > $W/ncu_$e/run.txt 2>&1
  echo "ncu $e rc $? at $(el) s"; grep -E "twiaff|strength|row_sums" $W/ncu_$e/*-n*.txt | cut -c1-200; rm -f $W/ncu_$e/*.ncu-rep
done
cp /tmp/twiaff.bak $f; cmake --build build-gpu > $W/rebuild_back.log 2>&1; echo "rebuild back rc $? at $(el) s"
export AMGT_BUILD_DIR=build-gpu
timeout 80 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 2 --rounds 1 --no-plots --no-stats --timeout 60 --out /tmp/lg > $W/large.log 2>&1
echo "large rc $? at $(el) s"; cp /tmp/lg/runs.jsonl $W/large_runs.jsonl; cp /tmp/lg/summary.txt $W/large_summary.txt; grep -A4 "^Geometric mean" /tmp/lg/summary.txt
timeout $(( 540 - $(el) )) ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto,mixed --repeat 2 --rounds 1 --no-plots --no-stats --timeout 60 --out /tmp/m1 > $W/m1.log 2>&1
echo "1m rc $? at $(el) s"; cp /tmp/m1/runs.jsonl $W/m1_runs.jsonl; cp /tmp/m1/summary.txt $W/m1_summary.txt; grep -A5 "^Geometric mean" /tmp/m1/summary.txt
tar -cJf $OUT/call3.tar.xz -C $W .
echo "end $(el) s"
