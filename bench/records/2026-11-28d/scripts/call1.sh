#!/bin/bash
# call 1: build 540e1dc, the GPU tests, the tests of the planner and cost model in a GPU build
# (1cc8154, a41267c, 540e1dc never ran on a GPU), AMGT_STATS of the model's decisions
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 6 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head -12
(cd build-gpu && timeout 120 ctest -R "Selection\.|Resetup\.|Steps\.|OutOfDeviceMemory|CostModel|Planner\." -j 8 --output-on-failure) > $OUT/ctest_sel.log 2>&1; echo "ctest selected rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\*\*\*" $OUT/ctest_sel.log | head -12
for c in "ted_B --matrix .carry/matrices/ted_B.mtx.gz" "l7n46 --problem laplace7 --n 46" "l7n100 --problem laplace7 --n 100" "l27n100 --problem laplace27 --n 100"; do
  set -- $c; lab=$1; shift
  AMGT=auto AMGT_STATS=1 timeout 20 build-gpu/bin/amgt-solve "$@" --solver pcg --repeat 1 > /tmp/st.txt 2>&1
  (echo "##### $lab auto"; grep -E "cost model|preload|^  time|^  cold|fallbacks to stock|result" /tmp/st.txt) >> $OUT/stats_model.txt
done
echo "end $(el) s"
