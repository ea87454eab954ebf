#!/bin/bash
# record 2026-11-26g, device call 2: batched survey statistics: build, GPU + integration tests, AMGT_STATS survey on/off
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 200 ctest -L integration -j 4 --output-on-failure) > $OUT/ctest_integration.log 2>&1; echo "ctest integration rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_integration.log | head
S=build-gpu/bin/amgt-solve
for c in "laplace7 100" "aniso7 100" "laplace7 160" "laplace7 250"; do for sv in 1 0; do
  set -- $c
  AMGT=auto AMGT_SETUP_SURVEY=$sv AMGT_STATS=1 timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 3 > /tmp/st.txt 2>&1
  echo "## stats $1 $2 auto survey=$sv" >> $OUT/stats.txt; grep -E "time \[s\]|result|plugin setup work|setup survey|why level" /tmp/st.txt >> $OUT/stats.txt
done; done
grep -E "^##|time|plugin setup|survey" $OUT/stats.txt
echo "total $(( $(date +%s) - t0 )) s"
