#!/bin/bash
# call 2 (call 1's machine and build): the whole small suite cold (a process's first setup and
# solve, CUDA's default lazy loading) in stock and every plugin mode, round by round; the five
# 1M problems one-shot; hypre's ij on its two 100^3 problems in every plugin mode
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv > /tmp/small.tsv
out=/tmp/cold_$(date +%s)
timeout -s INT ${COLD_S:-250} ./scripts/run.sh --no-build --cases /tmp/small.tsv --modes stock,fp64,auto,mixed --repeat 1 \
  --rounds 6 --no-plots --no-stats --timeout 60 --out $out > $out.log 2>&1
echo "cold rc $? at $(el) s"
cp $out/runs.jsonl $OUT/cold_runs.jsonl 2>/dev/null
python3 bench/cold_pairs.py $out/runs.jsonl > $OUT/cold_pairs.txt 2>&1; tail -8 $OUT/cold_pairs.txt
out1=/tmp/m1_$(date +%s)
timeout -s INT 90 ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto,mixed --repeat 1 \
  --rounds 2 --no-plots --no-stats --timeout 60 --out $out1 > $out1.log 2>&1
echo "1m one-shot rc $? at $(el) s"
cp $out1/runs.jsonl $OUT/m1_runs.jsonl 2>/dev/null; cp $out1/summary.txt $OUT/m1_summary.txt 2>/dev/null
python3 bench/cold_pairs.py $out1/runs.jsonl 2>&1 | tail -25
timeout 110 python3 bench/ij_compare.py --build build-gpu --modes unset,fp64,auto,mixed --procs 2 --problems small \
  --json $OUT/ij.json > $OUT/ij.txt 2>&1
echo "ij rc $? at $(el) s"; tail -20 $OUT/ij.txt
echo "end $(el) s"
# the four pairs below 0.98 in call 1 (two processes each), again with six processes
grep -E "^(Muu|jnlbrng1|laplace27-n22|jump7-n31)	" bench/cases_small.tsv > /tmp/low4.tsv
timeout $(( 590 - $(el) )) python3 bench/beside_stock.py --build build-gpu --cases /tmp/low4.tsv --matrices .carry/matrices \
  --modes fp64,auto,mixed --procs 6 --repeat 3 --timeout 60 --deadline $(( 580 - $(el) )) --json $OUT/bs_low4.json > $OUT/bs_low4.txt 2>&1
echo "beside low4 rc $? at $(el) s"; cat $OUT/bs_low4.txt | tail -20
