#!/bin/bash
# call 5 (chained on call 4's machine, its last 60 s of device time): cold batches of the two
# cases left open there (aniso7 n=31, laplace27 n=22), resumed from call 4's batches; as run
# (one line), spread out here
W=/tmp/w5; mkdir -p $W; export AMGT_BUILD_DIR=build-gpu
grep -E "^(aniso7-n31|laplace27-n22)\s" /tmp/below.tsv > /tmp/two.tsv
taskset -c 4-7 timeout 55 python3 bench/cold_rounds.py --cases /tmp/two.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --covariate probe_api_s --interval t --deadline 45 --resume build-gpu/cold_t/batch*/*/run/runs.jsonl \
  --out build-gpu/cold_u --json $W/cold_u.json > $W/cold_u.txt 2>&1; echo rc $?
for x in build-gpu/cold_u/batch*/*/run/runs.jsonl; do
  b=$(basename $(dirname $(dirname $(dirname $x)))); k=$(basename $(dirname $(dirname $x))); cp $x $W/cold_u_${b}_$k.jsonl
done
tail -9 $W/cold_u.txt; tar -cJf $OUT/call5.tar.xz -C $W .
