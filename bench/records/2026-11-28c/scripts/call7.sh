#!/bin/bash
# call 7 (a fresh machine: call 6 found none warm): build, the tests whose settings changed,
# AMGT_STATS of the cost model's decisions
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
for c in "ted_B --matrix .carry/matrices/ted_B.mtx.gz" "l7n46 --problem laplace7 --n 46" "l7n100 --problem laplace7 --n 100"; do
  set -- $c; lab=$1; shift
  AMGT=auto AMGT_STATS=1 timeout 20 build-gpu/bin/amgt-solve "$@" --solver pcg --repeat 1 > /tmp/st.txt 2>&1
  (echo "##### $lab auto"; grep -E "cost model|preload|^  time|^  cold|fallbacks to stock|result" /tmp/st.txt) >> $OUT/stats_model.txt
done
echo "stats at $(el) s"
(cd build-gpu && timeout $(( 285 - $(el) )) ctest -R "Selection\.|Resetup\.Device|OutOfDeviceMemory|CostModel|Planner\." -j 8 --output-on-failure) > $OUT/ctest_sel.log 2>&1; echo "ctest selected rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\*\*\*" $OUT/ctest_sel.log | head -12
echo "end $(el) s"
