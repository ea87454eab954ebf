#!/bin/bash
# call 2 (call 1's machine and build): the whole small suite cold, round pairs in batches until
# each case is decided or the call's time is spent (bench/cold_rounds.py); PIN=CPUS binds the
# processes (taskset) when call 1 found that it narrows the spread
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv > /tmp/small.tsv
run=(); [ -n "${PIN:-}" ] && run=(taskset -c $PIN)
resume=(); [ -n "${RESUME:-}" ] && resume=(--resume $RESUME)
"${run[@]}" python3 bench/cold_rounds.py --cases /tmp/small.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --deadline $(( ${LIMIT:-585} - $(el) )) --out build-gpu/cold_${TAG:-a} --json $OUT/cold_${TAG:-a}.json "${resume[@]}" > $OUT/cold_${TAG:-a}.txt 2>&1
echo "cold rc $? at $(el) s"
for f in build-gpu/cold_${TAG:-a}/batch*/run/runs.jsonl; do cp $f $OUT/cold_${TAG:-a}_$(basename $(dirname $(dirname $f))).jsonl; done
tail -130 $OUT/cold_${TAG:-a}.txt | grep -vE "^\s*$" | tail -125
echo "end $(el) s"
