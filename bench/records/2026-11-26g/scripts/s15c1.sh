#!/bin/bash
# record 2026-11-26g, device call 1: the setup survey: build, GPU + integration tests, AMGT_STATS and kprof with the survey on/off
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 200 ctest -L integration -j 4 --output-on-failure) > $OUT/ctest_integration.log 2>&1; echo "ctest integration rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_integration.log | head
S=build-gpu/bin/amgt-solve
for sv in 1 0; do for c in "laplace7 100" "laplace7 160"; do
  set -- $c
  AMGT=auto AMGT_SETUP_SURVEY=$sv AMGT_STATS=1 timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 3 > /tmp/st.txt 2>&1
  echo "## stats $1 $2 auto survey=$sv" >> $OUT/stats.txt; grep -E "time \[s\]|result|plugin setup work|setup survey|why level 0|why level 2" /tmp/st.txt >> $OUT/stats.txt
done; done
grep -E "^##|time|plugin setup|survey" $OUT/stats.txt
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
kp() { # case n mode survey
  AMGT=$3 AMGT_SETUP_SURVEY=$4 LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 2 > /dev/null 2>&1
  echo "## $1 $2 $3 survey=$4" >> $OUT/kprof.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase "AMGSetup" --top 12 | awk '/== phase/{n++} n==3' >> $OUT/kprof.txt 2>&1
}
for c in "laplace7 100" "laplace7 160" "laplace27 100"; do for m in auto fp64; do for sv in 1 0; do kp $c $m $sv; done; done; done
grep -E "^##|== phase|host API" $OUT/kprof.txt | cut -c1-260
echo "total $(( $(date +%s) - t0 )) s"
