#!/bin/bash
# call 4: the preload loads libHYPRE's kernels (hypre's and the plugin's): build, GPU tests,
# the preload's statistics, one-shot first setups of the five 1M problems (default lazy
# loading, four processes a mode interleaved: stock, stock under EAGER loading, fp64, auto,
# auto with AMGT_PRELOAD=plugin as before)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 6 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head -12
(cd build-gpu && timeout 100 ctest -R "KernelImages|Selection\.KernelsPreloaded|Environment\." -j 8 --output-on-failure) > $OUT/ctest_sel.log 2>&1; echo "ctest selected rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\*\*\*" $OUT/ctest_sel.log | head -12
S=build-gpu/bin/amgt-solve
for c in "l7n100 --problem laplace7 --n 100" "l27n100 --problem laplace27 --n 100" "ted_B --matrix .carry/matrices/ted_B.mtx.gz"; do
  set -- $c; lab=$1; shift
  for pre in all plugin; do
    AMGT=auto AMGT_PRELOAD=$pre AMGT_STATS=1 timeout 30 $S "$@" --solver pcg --repeat 1 > /tmp/st.txt 2>&1
    (echo "##### $lab auto preload=$pre"; grep -E "preload|PRELOAD|^  time|^  cold|result" /tmp/st.txt) >> $OUT/stats_preload.txt
  done
done
echo "stats at $(el) s"
for r in 1 2 3 4; do
  while IFS=$'\t' read -r lab args; do
    case "$lab" in ''|'#'*) continue;; esac
    for m in stock stock-eager fp64 auto auto-plugin; do
      case $m in
        stock) E="env -u AMGT";; stock-eager) E="env -u AMGT CUDA_MODULE_LOADING=EAGER";;
        auto-plugin) E="env AMGT=auto AMGT_PRELOAD=plugin";; *) E="env AMGT=$m";;
      esac
      $E timeout 30 $S $args --repeat 0 > /tmp/o.txt 2>&1
      echo "oneshot $lab $m $r $(grep -E '^  time' /tmp/o.txt | tr -s ' ')"
    done
  done < bench/cases_1m.tsv
done > $OUT/oneshot.txt
echo "oneshot at $(el) s"
echo "end $(el) s"
