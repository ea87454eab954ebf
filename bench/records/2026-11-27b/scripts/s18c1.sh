#!/bin/bash
# record 2026-11-27b, device call 1: entry-order conversions with unranked tiles: GPU tests, the conversion tables, AMGT_STATS, run.sh large
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
for pp in "laplace7:250 fp32" "laplace27:200 fp16" "systems3:126 fp16"; do
  set -- $pp
  left=$(( 420 - ($(date +%s) - t0) )); [ $left -lt 30 ] && break
  timeout $left build-gpu/bin/amgt-kernel-bench --only spmv --problem $1 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision $2 --hierarchy-order hypre > /tmp/kb.txt 2>&1; echo "kb $1 $2 rc $? at $(( $(date +%s) - t0 )) s"
  f=$OUT/kb_${1/:/_}_$2.txt
  { grep -E "^AMG hierarchy" /tmp/kb.txt; sed -n '/== Conversion + SpMV plan/,/^$/p' /tmp/kb.txt; grep -E "FAIL|ERROR" /tmp/kb.txt | head -5; } > $f
  grep -E "/L[0-3] |geometric" $f | cut -c1-220
done
AMGT=auto AMGT_STATS=1 timeout 40 build-gpu/bin/amgt-solve --problem laplace7 --n 250 --solver pcg --repeat 2 > $OUT/stats_l7_250_auto.txt 2>&1; echo "stats rc $? at $(( $(date +%s) - t0 )) s"
grep -E "  result|plugin setup work|time \[s\]" $OUT/stats_l7_250_auto.txt
export AMGT_BUILD_DIR=build-gpu
left=$(( 590 - ($(date +%s) - t0) ))
[ $left -gt 80 ] && { timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --rounds 1 --no-stats --no-plots --timeout 120 --out /tmp/lg > /tmp/lg.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"; cp /tmp/lg/summary.txt $OUT/large_summary.txt
sed -n '/Geometric mean/,/^$/p' /tmp/lg/summary.txt | head -8; }
echo "total $(( $(date +%s) - t0 )) s"
