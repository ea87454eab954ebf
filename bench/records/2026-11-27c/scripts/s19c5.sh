#!/bin/bash
# record 2026-11-27c, device call 5: hashed conversion's 64-thread tier at >= 20 blocks an SM (AMGT_XOCC=1, experiment) against today's (AMGT_XOCC=0), same build; GPU tests with it
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for p in "systems3:126 fp16" "laplace7:250 fp32"; do set -- $p
  for x in 0 1 0 1; do
    AMGT_XOCC=$x timeout 45 build-gpu/bin/amgt-kernel-bench --only spmv --problem $1 --device-only --setup-products 1 --repeat 3 --warmup 1 --precision $2 --hierarchy-order hypre > /tmp/kb.txt 2>&1; echo "kb $1 xocc=$x rc $? at $(( $(date +%s) - t0 )) s"
    { echo "## $1 $2 AMGT_XOCC=$x"; sed -n '/== Conversion + SpMV plan/,/^geometric/p' /tmp/kb.txt; } >> $OUT/kb_conv.txt
    grep -E "^(systems3_n126/L0 +A|laplace7_n250/L1 +A|laplace7_n250/L0 +P) " /tmp/kb.txt | head -3 | cut -c1-200
    [ $(( $(date +%s) - t0 )) -gt 330 ] && break 2
  done
done
(cd build-gpu && AMGT_XOCC=1 timeout $(( 430 - ($(date +%s) - t0) )) ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu_xocc.log 2>&1; echo "ctest gpu xocc rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu_xocc.log | head
echo "total $(( $(date +%s) - t0 )) s"
