#!/bin/bash
# record 2026-11-26e, device call 5: lean deterministic? integration; 1M end to end with and without the plugin's SpGEMM; kprof of setups
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 60 ./bin/test_csr_spgemm_device) > $OUT/test_csr_spgemm_device.log 2>&1; echo "csr device rc $?"; grep -E "PASSED|FAILED|Failure" $OUT/test_csr_spgemm_device.log | head -20
(cd build-gpu && timeout 200 ctest -L integration -j 4 --output-on-failure) > $OUT/ctest_integration.log 2>&1; echo "ctest integration rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_integration.log | head
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
kp() { # case n env phase tag
  env $3 LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 1 > /dev/null 2>&1
  echo "## $1 $2 $3 $4" >> $OUT/kprof_$5.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase "$4" --top 30 | awk '/== phase/{n++} n==2' >> $OUT/kprof_$5.txt 2>&1
}
for e in AMGT=off AMGT=fp64 "AMGT=fp64 AMGT_SPGEMM=stock" AMGT=auto; do kp laplace7 100 "$e" AMGSetup m1; done
grep -E "^##|== phase|by category|host API" $OUT/kprof_m1.txt | cut -c1-260
AMGT=fp64 AMGT_STATS=1 timeout 60 $S --problem laplace7 --n 100 --solver pcg --repeat 2 > $OUT/stats_l7_100_fp64.txt 2>&1
grep -iE "spgemm|product" $OUT/stats_l7_100_fp64.txt | head -30
export AMGT_BUILD_DIR=build-gpu
left=$(( 585 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,fp64-hspgemm,auto,auto-hspgemm --repeat 5 --rounds 1 --no-stats --no-plots --timeout 100 --out $OUT/m1 > /tmp/m1.log 2>&1
echo "1M rc $? at $(( $(date +%s) - t0 )) s"
rm -rf $OUT/m1/logs
grep -vE '^\[|^run ' /tmp/m1.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode " | head -50
echo "total $(( $(date +%s) - t0 )) s"
