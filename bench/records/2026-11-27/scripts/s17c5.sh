#!/bin/bash
# record 2026-11-27, device call 5: AMGT_SPMV_X32 (x gathered as float): GPU tests, the SpMV tables with and without --x32
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
grep -E "SpmvX32" $OUT/ctest_gpu.log | grep -E "Passed|Failed" | head -12
for p in laplace7:250 laplace27:200 systems3:126; do for x in "" "--x32"; do
  left=$(( 590 - ($(date +%s) - t0) )); [ $left -lt 30 ] && break 2
  timeout $left build-gpu/bin/amgt-kernel-bench --only spmv --problem $p --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp32 --hierarchy-order hypre $x > /tmp/kb.txt 2>&1; echo "kb $p $x rc $? at $(( $(date +%s) - t0 )) s"
  f=$OUT/kb_${p/:/_}_fp32${x/--/_}.txt
  { grep -E "^AMG hierarchy" /tmp/kb.txt; sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt; grep -E "FAIL|ERROR" /tmp/kb.txt | head -5; } > $f
  grep -E "/L[0-3] " $f | cut -c1-150
done; done
echo "total $(( $(date +%s) - t0 )) s"
