#!/bin/bash
# call 4 (chained on call 3's machine): more cold batches of the same three cases, a second pool
# decided at 99% (call 3 closed every case-mode on 6-28 pairs at 95%)
set -o pipefail
W=$OUT/call4; mkdir -p $W; export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv | grep -E "^(aniso7-n31|fv2|laplace27-n22)\s" > $W/open.tsv
taskset -c 4-7 python3 bench/cold_rounds.py --cases $W/open.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --covariate probe_api_s --interval t --coverage 0.99 --deadline ${DEADLINE:-400} \
  --out build-gpu/cold_w --json $W/cold_w.json > $W/cold_w.txt 2>&1; echo "cold rc $?"
for x in build-gpu/cold_w/batch*/*/run/runs.jsonl; do
  b=$(basename "$(dirname "$(dirname "$(dirname "$x")")")"); k=$(basename "$(dirname "$(dirname "$x")")"); cp "$x" $W/cold_w_${b}_$k.jsonl
done
tail -16 $W/cold_w.txt
tar -cJf $OUT/call4.tar.xz -C $OUT call4 && rm -rf $W
