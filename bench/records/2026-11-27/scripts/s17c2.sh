#!/bin/bash
# record 2026-11-27, device call 2: SpGEMM tables of the four large reference problems; SpMV fp32 l7n250 (new lanes)
set -o pipefail
t0=$(date +%s)
[ -x build-gpu/bin/amgt-kernel-bench ] || { scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 60 build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace7:250 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp32 --hierarchy-order hypre > /tmp/kb.txt 2>&1; echo "kb spmv fp32 rc $? at $(( $(date +%s) - t0 )) s"
{ grep -E "^AMG hierarchy|unsorted columns" /tmp/kb.txt; sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt; } > $OUT/kb_spmv_l7_250_fp32.txt
for p in laplace7:160 systems3:126 laplace27:200 laplace7:250; do
  left=$(( 590 - ($(date +%s) - t0) )); [ $left -lt 30 ] && break
  timeout $left build-gpu/bin/amgt-kernel-bench --only spgemm --problem $p --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp32 > $OUT/kb_spgemm_${p/:/_}.txt 2>/tmp/kb_err.txt; echo "kb spgemm $p rc $? at $(( $(date +%s) - t0 )) s"
  grep -E "FAIL|ERROR|FATAL" $OUT/kb_spgemm_${p/:/_}.txt | head -5; tail -2 /tmp/kb_err.txt | cut -c1-200
  sed -n '/== SpGEMM work/,/^geomean/p' $OUT/kb_spgemm_${p/:/_}.txt | tail -9 | cut -c1-190
done
echo "total $(( $(date +%s) - t0 )) s"
