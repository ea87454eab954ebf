#!/bin/bash
# call 6: the preload with images loaded in BoomerAMG's order as they are met, and the GPU test
# that runs a loaded kernel: build, the tests of the preload and the driver's selection,
# one-shot processes of the five 1M problems with their wall time (stock, auto, auto with
# AMGT_PRELOAD=plugin), the small-systems suite (one round: cold and warm)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 90 ctest -R "KernelImages|Selection\.|Steps\.|Resetup\.|Environment\." -j 8 --output-on-failure) > $OUT/ctest_sel.log 2>&1; echo "ctest selected rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\*\*\*" $OUT/ctest_sel.log | head -12
S=build-gpu/bin/amgt-solve
for c in "l7n100 --problem laplace7 --n 100" "ted_B --matrix .carry/matrices/ted_B.mtx.gz"; do
  set -- $c; lab=$1; shift
  AMGT=auto AMGT_STATS=1 timeout 30 $S "$@" --solver pcg --repeat 1 > /tmp/st.txt 2>&1
  (echo "##### $lab auto"; grep -E "preload|PRELOAD|^  time|^  cold|result" /tmp/st.txt) >> $OUT/stats_preload.txt
done
for r in 1 2; do
  while IFS=$'\t' read -r lab args; do
    case "$lab" in ''|'#'*) continue;; esac
    for m in stock auto auto-plugin; do
      case $m in stock) E="env -u AMGT";; auto-plugin) E="env AMGT=auto AMGT_PRELOAD=plugin";; *) E="env AMGT=$m";; esac
      a=$(date +%s.%N); $E timeout 30 $S $args --repeat 0 > /tmp/o.txt 2>&1; b=$(date +%s.%N)
      echo "oneshot $lab $m $r wall $(awk "BEGIN{printf \"%.3f\", $b-$a}") $(grep -E '^  time' /tmp/o.txt | tr -s ' ')"
    done
  done < bench/cases_1m.tsv
done > $OUT/oneshot.txt
echo "oneshot at $(el) s"
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv > /tmp/small.tsv
left=$(( 480 - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/small.tsv --modes stock,fp64,auto --repeat 3 --no-plots --no-stats --timeout 60 --out /tmp/sm > /tmp/sm.log 2>&1
echo "small rc $? at $(el) s"; cp /tmp/sm/summary.txt $OUT/small_summary.txt 2>/dev/null; cp /tmp/sm/runs.jsonl $OUT/small_runs.jsonl 2>/dev/null; tail -4 /tmp/sm.log
echo "end $(el) s"
