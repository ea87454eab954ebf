#!/bin/bash
# record 2026-11-26d, device call 9: the SpMV kernels' streamed loads without L1 allocation (load_stream, NEW) against __ldg (OLD, sed + rebuild in the call, then restored)
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
KB=build-gpu/bin/amgt-kernel-bench
bench() { # tag
  timeout 100 $KB --only spmv --problem laplace7:250 --device-only --setup-products 1 --repeat 5 --warmup 1 --precision fp32 > /tmp/kb.txt 2>&1; echo "kbench l7 levels $1 rc $? at $(( $(date +%s) - t0 )) s"
  sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt > $OUT/kbench_levels_l7_250_fp32_$1.txt; grep -E "^laplace" $OUT/kbench_levels_l7_250_fp32_$1.txt | awk '$4+0 >= 2000000' | cut -c1-160
  for p in fp32 fp64; do
    timeout 60 $KB --only spmv --problem laplace27:200 --device-only --setup-products 0 --repeat 5 --warmup 1 --precision $p > /tmp/kb.txt 2>&1; echo "kbench l27 $p $1 rc $?"
    sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt > $OUT/kbench_layout_l27_200_${p}_$1.txt; grep -E "^laplace" $OUT/kbench_layout_l27_200_${p}_$1.txt | cut -c1-160
  done
}
bench NEW
F="plugin/spmv/spmv_kernels.cuh plugin/rows/rows_device.cu"
for f in $F; do cp $f /tmp/$(basename $f).orig; done
sed -i 's/device::load_stream(/__ldg(/g' $F; grep -c "__ldg(meta" plugin/spmv/spmv_kernels.cuh
timeout 200 cmake --build build-gpu -j 16 > /tmp/rb.log 2>&1; echo "rebuild OLD rc $? at $(( $(date +%s) - t0 )) s"
bench OLD
for f in $F; do cp /tmp/$(basename $f).orig $f; touch $f; done
left=$(( 590 - ($(date +%s) - t0) ))
timeout $left cmake --build build-gpu -j 16 > /tmp/rb.log 2>&1; echo "rebuild NEW rc $? at $(( $(date +%s) - t0 )) s"
echo "total $(( $(date +%s) - t0 )) s"
