#!/bin/bash
# record 2026-11-26e, device call 7: final code: large cases end to end (stock, fp64, auto), SpGEMM kernel bench laplace7 n=160 with the lean column
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
timeout 60 build-gpu/bin/amgt-kernel-bench --only spgemm --problem laplace7:160 --repeat 3 --warmup 1 > $OUT/kbench_l7_160.txt 2>&1; echo "kbench rc $? at $(( $(date +%s) - t0 )) s"
grep -E "rows lean|rows one_pass +vs hypre|auto's pick|binned mode" $OUT/kbench_l7_160.txt
export AMGT_BUILD_DIR=build-gpu
left=$(( 575 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,fp64,auto --repeat 3 --rounds 2 --no-stats --no-plots --timeout 120 --out $OUT/large > /tmp/large.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"
rm -rf $OUT/large/logs
grep -vE '^\[|^run ' /tmp/large.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode " | head -40
echo "total $(( $(date +%s) - t0 )) s"
