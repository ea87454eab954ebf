#!/bin/bash
# call 2 (chained on call 1's machine): the F-F weights put back as committed (twiaff_head.cu,
# rebuilt), then cold batches of the 21 small cases resumed from the twenty earlier batches
# (.carry/prev: records 2026-11-29j, k and 2026-11-30), only the open case-modes run, every
# process pinned to cores 4-7; as run (one line), spread out here
set -o pipefail; t0=$(date +%s); W=/tmp/w2; mkdir -p $W
cp .carry/twiaff_head.cu plugin/interp/twiaff_device.cu && cmake --build build-gpu > $W/rebuild.log 2>&1
echo "rebuild rc $? at $(( $(date +%s)-t0 )) s"
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv |
  grep -E "^(poisson10000|laplace7-n22|aniso7-n22|jump7-n22|fv1|fv2|fv3|aft01|memplus|systems3-n15|ted_B|Muu|jnlbrng1|laplace7-n31|aniso7-n31|jump7-n31|minsurfo|Dubcova1|laplace27-n22|bcsstk16|shallow_water1)\s" > /tmp/below.tsv
wc -l < /tmp/below.tsv
taskset -c 4-7 python3 bench/cold_rounds.py --cases /tmp/below.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --covariate probe_api_s --interval t --heterogeneity --deadline $(( 560 - $(date +%s) + t0 )) \
  --resume .carry/prev/*.jsonl --out build-gpu/cold_s --json $W/cold_s.json > $W/cold_s.txt 2>&1
echo "cold rc $? at $(( $(date +%s)-t0 )) s"
for x in build-gpu/cold_s/batch*/*/run/runs.jsonl; do
  b=$(basename $(dirname $(dirname $(dirname $x)))); k=$(basename $(dirname $(dirname $x))); cp $x $W/cold_s_${b}_$k.jsonl
done
ls $W | wc -l; tail -30 $W/cold_s.txt; tar -cJf $OUT/call2.tar.xz -C $W .
