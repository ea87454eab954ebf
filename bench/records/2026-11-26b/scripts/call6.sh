#!/bin/bash
# record 2026-11-26b, device call 6: tier 2 as 128-thread blocks; A/B tier 1 warp vs 64-thread block
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for v in A B; do
 if [ $v = B ]; then
  sed -i 's/{32, 8, 8, 32, 128}/{64, 8, 1, 32, 128}/' plugin/mbsr/mbsr_internal.cuh
  (cd build-gpu && ninja > /tmp/rebuild.log 2>&1) || { tail -30 /tmp/rebuild.log; exit 1; }
  echo "rebuild B $(( $(date +%s) - t0 )) s"
 fi
 (cd build-gpu && timeout 120 ctest -R "DeviceConversion|EntryOrder|RowsDevice" -j 4 --output-on-failure) > $OUT/ctest_conv_$v.log 2>&1; echo "ctest conv $v rc $?"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_conv_$v.log | head
 timeout 150 build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace7:250 --problem systems3:126 --device-only --setup-products 1 --repeat 3 --warmup 1 > /tmp/kb.txt 2>&1; echo "kbench $v rc $? at $(( $(date +%s) - t0 )) s"
 sed -n '/== Conversion + SpMV plan/,/geometric mean xsorted/p' /tmp/kb.txt > $OUT/kbench_conv_$v.txt
done
git checkout plugin/mbsr/mbsr_internal.cuh
echo "total $(( $(date +%s) - t0 )) s"
