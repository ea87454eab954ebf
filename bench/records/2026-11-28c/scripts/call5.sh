#!/bin/bash
# call 5: the cost model and the preload's yield: build, GPU tests, the tests whose settings
# changed (call 6), the small-systems suite (two rounds of processes, stock / fp64 / auto)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 120 ctest -L gpu -j 5 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head -12
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv > /tmp/small.tsv
left=$(( 580 - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/small.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-plots --no-stats --timeout 60 --out /tmp/sm > /tmp/sm.log 2>&1
echo "small rc $? at $(el) s"; cp /tmp/sm/summary.txt $OUT/small_summary.txt 2>/dev/null; cp /tmp/sm/runs.jsonl $OUT/small_runs.jsonl 2>/dev/null; cp /tmp/sm/stats.jsonl $OUT/small_stats.jsonl 2>/dev/null; tail -4 /tmp/sm.log
echo "end $(el) s"
