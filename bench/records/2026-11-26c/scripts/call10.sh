#!/bin/bash
# record 2026-11-26c, device call 10: value statistics row-wise for long rows, flat for short: GPU tests, kprof of auto setups
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_gpu.log | head
grep -E "ShortAndLong|FewTiny|\[  PASSED|\[  FAILED" $OUT/ctest_gpu.log | head -5
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
for c in "systems3 126" "laplace7 250" "laplace27 200"; do set -- $c
 for m in auto; do
  AMGT=$m LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 1 > /dev/null 2>&1
  echo "## $1 $2 $m" >> $OUT/kprof_amgt.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase 'AMGSetup' --top 60 | awk '/== phase/{n++} n==2' | grep -E "== phase|by category|amgt|host API" >> $OUT/kprof_amgt.txt 2>&1
 done
done
grep -E "^##|by category|stats|underflow|scaling" $OUT/kprof_amgt.txt
echo "total $(( $(date +%s) - t0 )) s"
