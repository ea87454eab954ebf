#!/bin/bash
# call 1: build, GPU tests (the device code changed since the last GPU run), re-setup tests,
# the SpMV cost sweep (hypre's kernel against the plugin's layout, one-time work)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 5 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head -12
grep -cE "RefreshDevice|GlueRefreshDevice|ResetupDevice" $OUT/ctest_gpu.log
(cd build-gpu && timeout 60 ctest -R "Resetup\.|Steps\." -j 6 --output-on-failure) > $OUT/ctest_resetup.log 2>&1; echo "ctest resetup+steps rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_resetup.log | head -12
left=$(( 570 - $(el) ))
AMGT_SWEEP_SIZES="16384 65536 262144 1048576 4194304 16777216 67108864" timeout $left bench/spmv_cost_sweep.sh build-gpu $OUT/sweep > $OUT/sweep_table.txt 2>&1
echo "sweep rc $? at $(el) s"; head -3 $OUT/sweep_table.txt; wc -l $OUT/sweep_table.txt
echo "end $(el) s"
