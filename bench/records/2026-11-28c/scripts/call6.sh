#!/bin/bash
# call 6 (warm, build-gpu kept): the tests whose settings changed, AMGT_STATS of the model's
# decisions, hypre's ij (two 1M problems), one-shot first setups of the five
# 1M problems (default lazy loading, three processes a mode interleaved), the 1M suite
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
[ -x build-gpu/bin/amgt-solve ] || { echo "no build"; exit 1; }
(cd build-gpu && timeout 110 ctest -R "Selection\.|Resetup\.|Steps\.|OutOfDeviceMemory|CostModel|Planner\." -j 6 --output-on-failure) > $OUT/ctest_sel.log 2>&1; echo "ctest selected rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_sel.log | head -12
for c in "ted_B --matrix .carry/matrices/ted_B.mtx.gz" "l7n46 --problem laplace7 --n 46" "l7n100 --problem laplace7 --n 100" "l27n100 --problem laplace27 --n 100"; do
  set -- $c; lab=$1; shift
  AMGT=auto AMGT_STATS=1 build-gpu/bin/amgt-solve "$@" --solver pcg --repeat 1 > /tmp/st.txt 2>&1
  (echo "##### $lab auto"; grep -E "cost model|preload|^  time|^  cold|fallbacks to stock" /tmp/st.txt) >> $OUT/stats_model.txt
done
echo "stats at $(el) s"
timeout 100 python3 bench/ij_compare.py --build build-gpu --modes unset,fp64,auto --procs 3 --problems small --json $OUT/ij_small.json > $OUT/ij_small.txt 2>&1
echo "ij rc $? at $(el) s"; tail -9 $OUT/ij_small.txt
S=build-gpu/bin/amgt-solve
for r in 1 2 3; do
  while IFS=$'\t' read -r lab args; do
    case "$lab" in ''|'#'*) continue;; esac
    for m in stock fp64 auto; do
      if [ $m = stock ]; then E="env -u AMGT"; else E="env AMGT=$m"; fi
      $E $S $args --repeat 0 > /tmp/o.txt 2>&1
      echo "oneshot $lab $m $r $(grep -E '^  time' /tmp/o.txt | tr -s ' ')"
    done
  done < bench/cases_1m.tsv
done > $OUT/oneshot.txt
echo "oneshot at $(el) s"
left=$(( 330 - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 3 --no-plots --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1
echo "1m rc $? at $(el) s"; cp /tmp/m1/summary.txt $OUT/m1_summary.txt 2>/dev/null; grep -E "geomean|geometric" -A6 /tmp/m1/summary.txt | head -20
echo "end $(el) s"
