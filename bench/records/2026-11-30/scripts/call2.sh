#!/bin/bash
# call 2 (call 1's machine and build, chained at once): more cold batches of the 21 small cases,
# every process pinned to cores 4-7, pooled with call 1's three (cold_rounds.py --resume)
export AMGT_BUILD_DIR=build-gpu; W=/tmp/w2; mkdir -p $W; ls build-gpu/cold_p/
taskset -c 4-7 python3 bench/cold_rounds.py --cases /tmp/below.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --covariate probe_api_s --interval t --deadline 540 --resume build-gpu/cold_p/batch*/run/runs.jsonl \
  --out build-gpu/cold_q --json $W/cold_q.json > $W/cold_q.txt 2>&1; echo rc $?
for x in build-gpu/cold_p/batch*/run/runs.jsonl build-gpu/cold_q/batch*/run/runs.jsonl; do
  d=$(basename $(dirname $(dirname $(dirname $x)))); cp $x $W/${d}_$(basename $(dirname $(dirname $x))).jsonl; done
ls $W; tail -5 $W/cold_q.txt; tar -cJf $OUT/call2.tar.xz -C $W .
