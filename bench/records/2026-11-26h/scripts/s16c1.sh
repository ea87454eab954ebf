#!/bin/bash
# record 2026-11-26h, device call 1: build; per-level SpMV with the setup's matrices sorted and as hypre left them
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
kb() { # name order precision problem
  timeout 100 build-gpu/bin/amgt-kernel-bench --only spmv --problem $4 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision $3 --hierarchy-order $2 > /tmp/kb_$1.txt 2>&1; echo "kb $1 rc $? at $(( $(date +%s) - t0 )) s"
  { grep -E "^AMG hierarchy|unsorted columns" /tmp/kb_$1.txt; sed -n '/== SpMV per layout/,/^$/p' /tmp/kb_$1.txt; } > $OUT/kb_$1.txt
  grep -E "unsorted columns" /tmp/kb_$1.txt
}
kb l7_250_fp32_hypre hypre fp32 laplace7:250
kb l7_250_fp32_sorted sorted fp32 laplace7:250
kb l27_200_fp32_hypre hypre fp32 laplace27:200
kb l27_200_fp32_sorted sorted fp32 laplace27:200
kb s3_126_fp32_hypre hypre fp32 systems3:126
echo "total $(( $(date +%s) - t0 )) s"
