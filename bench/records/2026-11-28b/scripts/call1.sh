#!/bin/bash
# call 1: build, GPU tests, re-setup tests, 1M step sequences (stock vs auto-resetup)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 170 ctest -L gpu -j 5 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head -12
(cd build-gpu && timeout 100 ctest -R "Resetup\.|Steps\." -j 6 --output-on-failure) > $OUT/ctest_resetup.log 2>&1; echo "ctest resetup+steps rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|copies \]|memory \]" $OUT/ctest_resetup.log | head -12
export AMGT_BUILD_DIR=build-gpu
left=$(( 585 - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_steps.tsv --modes stock,auto-resetup --repeat 1 --no-plots --timeout 90 --out /tmp/s1m > /tmp/s1m.log 2>&1
echo "steps 1M rc $? at $(el) s"; cp /tmp/s1m/summary.txt $OUT/steps1m_summary.txt 2>/dev/null; cp /tmp/s1m/runs.jsonl $OUT/steps1m_runs.jsonl 2>/dev/null
grep -E "^  (stock|auto-resetup) |AMGT: re-setups|AMGT: setups" /tmp/s1m/summary.txt | cut -c1-200 | head -24
echo "end $(el) s"
