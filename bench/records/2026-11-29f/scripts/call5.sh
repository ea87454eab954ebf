#!/bin/bash
# call 5 (call 1's machine, call 4's build): every GPU test; the large cases end to end,
# stock against fp64 and auto, with the rewritten PMIS and F-F weight kernels
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
(cd build-gpu && timeout 170 ctest -j 8 -E "ij_compare_quick|run_sh|offline" --output-on-failure) > /tmp/ctest_all.log 2>&1
echo "ctest all rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|\(Failed\)|Timeout" /tmp/ctest_all.log | head -20
cp /tmp/ctest_all.log $OUT/ctest_all.log
export AMGT_BUILD_DIR=build-gpu
out=/tmp/large_$(date +%s)
timeout -s INT $(( 585 - $(el) )) ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 2 \
  --no-plots --no-stats --timeout 120 --out $out > $out.log 2>&1
echo "large rc $? at $(el) s"
cp $out/runs.jsonl $OUT/large_runs.jsonl 2>/dev/null; cp $out/summary.txt $OUT/large_summary.txt 2>/dev/null
grep -A14 -m1 "geomean\|Geomean" $out/summary.txt | head -30
echo "end $(el) s"
