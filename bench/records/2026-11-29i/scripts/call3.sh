#!/bin/bash
# call 3 (a fresh machine, the code of call 2): build; the 21 cases of the small suite below the
# preload's bound (fewer than 400k entries: their preload now stops at the matrix) cold, round
# pairs in batches until each is decided or the call's time is spent (bench/cold_rounds.py,
# decided on the measure, the first setup + solve; the assembly is in the same rows)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv |
  grep -E "^(poisson10000|laplace7-n22|aniso7-n22|jump7-n22|fv1|fv2|fv3|aft01|memplus|systems3-n15|ted_B|Muu|jnlbrng1|laplace7-n31|aniso7-n31|jump7-n31|minsurfo|Dubcova1|laplace27-n22|bcsstk16|shallow_water1)\s" > /tmp/below.tsv
wc -l < /tmp/below.tsv
python3 bench/cold_rounds.py --cases /tmp/below.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --deadline $(( 495 - $(el) )) --out build-gpu/cold_i --json $OUT/cold_i.json > $OUT/cold_i.txt 2>&1
echo "cold rc $? at $(el) s"
for f in build-gpu/cold_i/batch*/run/runs.jsonl; do cp $f $OUT/cold_i_$(basename $(dirname $(dirname $f))).jsonl; done
tail -60 $OUT/cold_i.txt | grep -vE "^\s*$" | tail -50
echo "end $(el) s"
