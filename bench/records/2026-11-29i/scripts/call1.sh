#!/bin/bash
# call 1 (a fresh machine, 929a215): build; the GPU tests of the row-wise copies' deferred flag
# and the drivers; then is the preload what slows the IJ assembly? Cold processes of small and
# 1M cases in stock, fp64, fp64-np (AMGT_PRELOAD=0) and fp64-pp (AMGT_PRELOAD=plugin), one run
# a process (run.sh --repeat 0 --rounds R, the modes' order turned each round), and AMGT_STATS'
# preload lines of one fp64 process per case
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 100 ctest -j 8 -R "RowsDevice|ReadBack|DriverModes|Selection" --output-on-failure) > /tmp/ctest.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" /tmp/ctest.log | head -20
mkdir -p $OUT/c
cp /tmp/ctest.log $OUT/
export AMGT_BUILD_DIR=build-gpu
M=.carry/matrices
printf "%s\t--matrix $M/%s.mtx.gz --solver pcg\n" fv2 fv2 fv1 fv1 bcsstk16 bcsstk16 Dubcova1 Dubcova1 aft01 aft01 memplus memplus > /tmp/sel.tsv
printf "%s\t--problem %s --n %s --solver pcg\n" laplace7-n22 laplace7 22 aniso7-n22 aniso7 22 jump7-n22 jump7 22 laplace27-n46 laplace27 46 >> /tmp/sel.tsv
for c in fv2 memplus laplace7-n22; do
  a=$(grep "^$c	" /tmp/sel.tsv | cut -f2)
  AMGT=fp64 AMGT_STATS=1 timeout 20 build-gpu/bin/amgt-solve $a --repeat 0 2>&1 | grep -iE "preload|kernels were" > $OUT/c/stats_$c.txt
done
echo "stats at $(el) s"; cat $OUT/c/stats_*.txt | cut -c1-300
timeout $(( 470 - $(el) )) ./scripts/run.sh --no-build --cases /tmp/sel.tsv --modes stock,fp64,fp64-np,fp64-pp --repeat 0 --rounds 8 --no-plots --no-stats --timeout 30 --out /tmp/small > /tmp/small.log 2>&1
echo "small rc $? at $(el) s"; cp /tmp/small/runs.jsonl $OUT/c/small_runs.jsonl
timeout $(( 585 - $(el) )) ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,fp64-np,fp64-pp --repeat 0 --rounds 3 --no-plots --no-stats --timeout 40 --out /tmp/m1 > /tmp/m1.log 2>&1
echo "1m rc $? at $(el) s"; cp /tmp/m1/runs.jsonl $OUT/c/m1_runs.jsonl
wc -l $OUT/c/*.jsonl
echo "end $(el) s"
