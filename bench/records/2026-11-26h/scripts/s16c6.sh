#!/bin/bash
# record 2026-11-26h, device call 6: the SpGEMM bench's new column (C put in the solve layout after the product), 1M and 4M laplace7 hierarchies, fp32
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for p in laplace7:100 laplace7:160 laplace27:100; do
  left=$(( 262 - ($(date +%s) - t0) )); [ $left -lt 15 ] && break
  timeout $left build-gpu/bin/amgt-kernel-bench --only spgemm --problem $p --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp32 > /tmp/kb.txt 2>&1; echo "kb $p rc $? at $(( $(date +%s) - t0 )) s"
  sed -n '/== Square products/,/^geomean/p' /tmp/kb.txt | tee $OUT/kb_spgemm_layout_${p/:/_}.txt | cut -c1-140
  grep -E "FAIL|ERROR" /tmp/kb.txt | head -5
done
echo "total $(( $(date +%s) - t0 )) s"
