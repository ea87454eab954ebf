#!/bin/bash
# call 3: build, the mended memory test, what the cost model decides on systems3 n=22 (auto lost
# 7% beside stock in call 2) and laplace27 n=31 (stock against stock 0.85 in call 2), those two
# beside stock again with the null, then the small suite's first setups: run.sh, three processes
# a case and mode (cold columns)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 60 ctest -R "Resetup\.Thousand|Selection\.BesideStock" -j 2 --output-on-failure) > $OUT/ctest_sel.log 2>&1; echo "ctest selected rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\[ memory \]" $OUT/ctest_sel.log | head -12
S=build-gpu/bin/amgt-solve
for c in "s3n22 --problem systems3 --n 22" "l27n31 --problem laplace27 --n 31"; do
  set -- $c; lab=$1; shift
  for m in auto fp64; do
    AMGT=$m AMGT_STATS=1 timeout 30 $S "$@" --solver pcg --repeat 3 --beside-stock > /tmp/st.txt 2>&1
    (echo "##### $lab $m"; grep -E "cost model|^  time|^  beside|^  vs stock|^  stock setups|^  setup all|fallbacks|l1-Jacobi|statistics|^ +[0-9]+ +[0-9-]" /tmp/st.txt) >> $OUT/stats.txt
  done
done
printf 's3n22\t--problem systems3 --n 22 --solver pcg\nl27n31\t--problem laplace27 --n 31 --solver pcg\n' > /tmp/two.tsv
python3 bench/beside_stock.py --build build-gpu --cases /tmp/two.tsv --modes fp64,auto --null --procs 3 --repeat 5 > $OUT/beside_two.txt 2>&1; echo "two rc $? at $(el) s"; cat $OUT/beside_two.txt | tail -9
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv > /tmp/small.tsv
left=$(( 560 - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/small.tsv --modes stock,fp64,auto --repeat 1 --rounds 3 --no-plots --no-stats --timeout 60 --out /tmp/sm > /tmp/sm.log 2>&1
echo "small rc $? at $(el) s"; cp /tmp/sm/summary.txt $OUT/small_summary.txt 2>/dev/null; cp /tmp/sm/runs.jsonl $OUT/small_runs.jsonl 2>/dev/null; tail -4 /tmp/sm.log
echo "end $(el) s"
