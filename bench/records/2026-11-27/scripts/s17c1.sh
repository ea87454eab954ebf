#!/bin/bash
# record 2026-11-27, device call 1: rows lanes (wide, x beyond L2) and the SpGEMM work table; GPU tests; SpMV tables l7n250; SpGEMM tables of the five 1M problems
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
for p in fp32 fp64; do
  timeout 60 build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace7:250 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision $p --hierarchy-order hypre > /tmp/kb.txt 2>&1; echo "kb spmv $p rc $? at $(( $(date +%s) - t0 )) s"
  { grep -E "^AMG hierarchy|unsorted columns" /tmp/kb.txt; sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt; } > $OUT/kb_spmv_l7_250_$p.txt
  grep -E " (A|PT) " $OUT/kb_spmv_l7_250_$p.txt | cut -c1-200 | head -8
done
for p in laplace7:100 laplace27:100 systems3:69 aniso7:100 jump7:100; do
  left=$(( 585 - ($(date +%s) - t0) )); [ $left -lt 20 ] && break
  timeout $left build-gpu/bin/amgt-kernel-bench --only spgemm --problem $p --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp32 --json $OUT/kb_spgemm_${p/:/_}.json > $OUT/kb_spgemm_${p/:/_}.txt 2>/tmp/kb_err.txt; echo "kb spgemm $p rc $? at $(( $(date +%s) - t0 )) s"
  grep -E "FAIL|ERROR|FATAL" $OUT/kb_spgemm_${p/:/_}.txt | head -5; tail -3 /tmp/kb_err.txt | cut -c1-200
  sed -n '/== SpGEMM work/,/^geomean/p' $OUT/kb_spgemm_${p/:/_}.txt | tail -12 | cut -c1-190
done
echo "total $(( $(date +%s) - t0 )) s"
