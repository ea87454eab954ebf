#!/bin/bash
# call 1: build; the re-setup's GPU tests (places), the memory test without the preload; the
# Galerkin products by places against the searching form (kernel bench); the jump drift
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 150 ctest -R "ResetupDevice|Resetup\.|Steps|GlueRefresh|RefreshDevice" -j 6 --output-on-failure > $OUT/ctest_resetup.log 2>&1; echo "ctest rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|\[ places|heap|resident" $OUT/ctest_resetup.log | head -30
cd ..
timeout 170 build-gpu/bin/amgt-kernel-bench --only galerkin --problem laplace7:250 --repeat 5 > $OUT/kbench_galerkin.txt 2>&1; echo "kbench rc $? at $(el) s"
grep -E "plan .* ms, AP|Galerkin|L[0-9]|total at" $OUT/kbench_galerkin.txt | cut -c1-250 | head -24
export AMGT_BUILD_DIR=build-gpu
grep -E "^jump7-n200-jump" bench/cases_steps_large.tsv > /tmp/jump.tsv
left=$(( 580 - $(el) )); [ $left -gt 60 ] || exit 0
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/jump.tsv --modes stock,auto-resetup --repeat 1 --no-plots --no-stats --timeout 150 --out /tmp/sj > /tmp/sj.log 2>&1
echo "jump rc $? at $(el) s"; cp /tmp/sj/summary.txt $OUT/jump_summary.txt 2>/dev/null; cp /tmp/sj/runs.jsonl $OUT/jump_runs.jsonl 2>/dev/null
grep -E "per step|ok " /tmp/sj/summary.txt | cut -c1-180 | head -12
echo "end $(el) s"
