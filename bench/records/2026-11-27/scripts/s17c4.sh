#!/bin/bash
# record 2026-11-27, device call 4: the lane rule's tests fixed; GPU tests; the two SpGEMM tables call 1 did not bring back; AMGT_STATS of the plugin's setup work on two large cases
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
for p in laplace7:100 systems3:69; do
  timeout 60 build-gpu/bin/amgt-kernel-bench --only spgemm --problem $p --device-only --setup-products 1 --repeat 3 --warmup 1 --precision fp32 > /tmp/kb.txt 2>/tmp/kb_err.txt; echo "kb spgemm $p rc $? at $(( $(date +%s) - t0 )) s"
  cat /tmp/kb.txt >> $OUT/kb_spgemm_1m_rest.txt
done
for c in "laplace7 250 fp64" "laplace7 250 auto" "laplace27 200 auto" "systems3 126 auto"; do
  set -- $c
  AMGT=$3 AMGT_STATS=1 timeout 60 build-gpu/bin/amgt-solve --problem $1 --n $2 --solver pcg --repeat 2 > /tmp/o.txt 2>&1; echo "stats $c rc $? at $(( $(date +%s) - t0 )) s"
  { echo "## $c"; cat /tmp/o.txt; } >> $OUT/stats_large.txt
done
grep -E "^## |setup work|plugin setup" $OUT/stats_large.txt | head -20
echo "total $(( $(date +%s) - t0 )) s"
