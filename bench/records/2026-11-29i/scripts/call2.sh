#!/bin/bash
# call 2 (a fresh machine): build (the preload stops at an application's first matrix of fewer
# than 400k entries a process, AMGT_PRELOAD=always goes on); every GPU test; cold processes of
# cases on both sides of the bound in stock, fp64 (the default), fp64-np (AMGT_PRELOAD=0) and
# fp64-pa (AMGT_PRELOAD=always, the preload as it was), one run a process, the modes' order
# turned each round
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 180 ctest -j 8 -E "ij_compare_quick|run_sh|offline" --output-on-failure) > /tmp/ctest_all.log 2>&1
echo "ctest all rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" /tmp/ctest_all.log | head -20
mkdir -p $OUT/c; cp /tmp/ctest_all.log $OUT/
grep -A3 "PreloadStopsAtASmallFirstMatrix\|PreloadRule" /tmp/ctest_all.log | grep -E "Passed|Failed" | head
export AMGT_BUILD_DIR=build-gpu
M=.carry/matrices
printf "%s\t--matrix $M/%s.mtx.gz --solver pcg\n" fv2 fv2 bcsstk16 bcsstk16 shallow_water1 shallow_water1 jnlbrng1 jnlbrng1 > /tmp/sel.tsv
printf "%s\t--problem %s --n %s --solver pcg\n" laplace7-n22 laplace7 22 systems3-n22 systems3 22 laplace7-n46 laplace7 46 laplace27-n31 laplace27 31 >> /tmp/sel.tsv
for c in fv2 laplace7-n46; do
  a=$(grep "^$c	" /tmp/sel.tsv | cut -f2)
  AMGT=fp64 AMGT_STATS=1 timeout 20 build-gpu/bin/amgt-solve $a --repeat 0 2>&1 | grep -iE "preload|kernels were" > $OUT/c/stats_$c.txt
done
cat $OUT/c/stats_*.txt | cut -c1-400
timeout $(( 580 - $(el) )) ./scripts/run.sh --no-build --cases /tmp/sel.tsv --modes stock,fp64,fp64-np,fp64-pa --repeat 0 --rounds 8 --no-plots --no-stats --timeout 30 --out /tmp/small > /tmp/small.log 2>&1
echo "small rc $? at $(el) s"; cp /tmp/small/runs.jsonl $OUT/c/small_runs.jsonl
wc -l $OUT/c/*.jsonl
echo "end $(el) s"
