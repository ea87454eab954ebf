#!/bin/bash
# call 3 (the same machine, chained at once): more pinned cold batches, pooled with calls 1-2's
export AMGT_BUILD_DIR=build-gpu; W=/tmp/w3; mkdir -p $W
taskset -c 4-7 python3 bench/cold_rounds.py --cases /tmp/below.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --covariate probe_api_s --interval t --deadline 490 \
  --resume build-gpu/cold_p/batch*/run/runs.jsonl build-gpu/cold_q/batch*/run/runs.jsonl \
  --out build-gpu/cold_r --json $W/cold_r.json > $W/cold_r.txt 2>&1; echo rc $?
for x in build-gpu/cold_r/batch*/run/runs.jsonl; do cp $x $W/cold_r_$(basename $(dirname $(dirname $x))).jsonl; done
ls $W; tail -4 $W/cold_r.txt; tar -cJf $OUT/call3.tar.xz -C $W .
