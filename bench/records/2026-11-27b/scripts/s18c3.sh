#!/bin/bash
# record 2026-11-27b, device call 3: tiles in first-seen order for every SpMV copy (deterministic), fp32/fp16 bitmap order: GPU tests, conversion tables, AMGT_STATS, run.sh large (and 1M if time is left)
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
for pp in "laplace7:250 fp32" "laplace7:250 fp64" "laplace27:200 fp16" "systems3:126 fp16"; do
  set -- $pp
  left=$(( 330 - ($(date +%s) - t0) )); [ $left -lt 30 ] && break
  timeout $left build-gpu/bin/amgt-kernel-bench --only spmv --problem $1 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision $2 --hierarchy-order hypre > /tmp/kb.txt 2>&1; echo "kb $1 $2 rc $? at $(( $(date +%s) - t0 )) s"
  { echo "## $1 $2"; grep -E "^AMG hierarchy" /tmp/kb.txt; sed -n '/== Conversion + SpMV plan/,/^$/p' /tmp/kb.txt; grep -E "FAIL|ERROR" /tmp/kb.txt | head -5; } >> $OUT/kb_conversion.txt
  grep -E "/L[0-2] +A |geometric" /tmp/kb.txt | cut -c1-250
done
for c in "laplace7 250 auto" "systems3 126 auto"; do
  set -- $c
  AMGT=$3 AMGT_STATS=1 timeout 40 build-gpu/bin/amgt-solve --problem $1 --n $2 --solver pcg --repeat 2 > /tmp/o.txt 2>&1; echo "stats $c rc $? at $(( $(date +%s) - t0 )) s"
  { echo "## $c"; cat /tmp/o.txt; } >> $OUT/stats_large.txt
done
grep -E "^## |  result|plugin setup work|^ +[0-2] " $OUT/stats_large.txt | cut -c1-200
export AMGT_BUILD_DIR=build-gpu
left=$(( 500 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/lg/summary.txt $OUT/large_summary.txt
sed -n '/Geometric mean/,/^$/p' /tmp/lg/summary.txt | head -8
grep -E "^[a-z]|  (fp64|auto) " /tmp/lg/summary.txt | cut -c1-150 | head -20
left=$(( 590 - ($(date +%s) - t0) ))
[ $left -gt 45 ] && { timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 3 --rounds 1 --no-stats --no-plots --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1
echo "1M rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/m1/summary.txt $OUT/m1_summary.txt
sed -n '/Geometric mean/,/^$/p' /tmp/m1/summary.txt | head -8; }
echo "total $(( $(date +%s) - t0 )) s"
