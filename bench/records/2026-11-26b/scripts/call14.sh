#!/bin/bash
# record 2026-11-26b, device call 14: SpMV per layout on laplace27 n=200 in fp32 and fp64 (kernel bench)
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for p in fp32 fp64; do
 timeout 150 build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace27:200 --device-only --setup-products 1 --repeat 5 --warmup 1 --precision $p > $OUT/kbench_spmv_laplace27_200_$p.txt 2>&1; echo "kbench $p rc $? at $(( $(date +%s) - t0 )) s"
done
echo "total $(( $(date +%s) - t0 )) s"
