#!/bin/bash
# call 2 (warm, build-gpu of call 1): hypre's ij on the two 1M problems, one-shot first setups
# of the five 1M problems (default lazy loading, three processes a mode interleaved), the 1M suite
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
[ -x build-gpu/bin/amgt-solve ] || { echo "no build"; exit 1; }
timeout 150 python3 bench/ij_compare.py --build build-gpu --modes unset,fp64,auto --procs 3 --problems small --json $OUT/ij_small.json > $OUT/ij_small.txt 2>&1
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
left=$(( 570 - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 5 --rounds 3 --no-plots --no-stats --timeout 60 --out /tmp/m1 > /tmp/m1.log 2>&1
echo "1m rc $? at $(el) s"; cp /tmp/m1/summary.txt $OUT/m1_summary.txt 2>/dev/null; cp /tmp/m1/runs.jsonl $OUT/m1_runs.jsonl 2>/dev/null; grep -E "geomean|geometric" -A6 /tmp/m1/summary.txt | head -20
echo "end $(el) s"
