#!/bin/bash
# call 3 (a fresh machine): the final code (the glue's declined calls counted without a lock or
# a string, amgt-entry-bench); amgt-entry-bench on the GPU (the host time of a declined entry,
# with and without AMGT_STATS); the statistics' and glue's tests in the GPU build; then cold
# batches of the three cases holding the small suite's open case-modes (aniso7 n=31, fv2,
# laplace27 n=22) in every mode, a fresh pool of this build, every process pinned to cores 4-7
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=$OUT/call3; mkdir -p $W
AMGT_TARGETS="amgt-solve amgt-entry-bench test_stats test_glue" scripts/offline_build.sh .carry build-gpu > $W/build.log 2>&1 || { grep -E "error" $W/build.log | head -20; tail -30 $W/build.log; exit 1; }
echo "build $(el) s"
for r in 1 2 3; do taskset -c 4-7 build-gpu/bin/amgt-entry-bench --calls 100000 > $W/entry_$r.txt 2>&1; done
AMGT_STATS=1 taskset -c 4-7 build-gpu/bin/amgt-entry-bench --calls 100000 > $W/entry_stats.txt 2> $W/entry_stats.err
cat $W/entry_1.txt; tail -n +3 $W/entry_2.txt; tail -n +3 $W/entry_3.txt; head -8 $W/entry_stats.txt
for t in test_stats test_glue; do b=$(find build-gpu -name $t -type f -perm -u+x | head -1); timeout 60 $b > $W/$t.log 2>&1; echo "$t rc $?: $(grep -E "PASSED|FAILED" $W/$t.log | tr '\n' ' ')"; done
echo "tests $(el) s"
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv | grep -E "^(aniso7-n31|fv2|laplace27-n22)\s" > $W/open.tsv
taskset -c 4-7 python3 bench/cold_rounds.py --cases $W/open.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --covariate probe_api_s --interval t --deadline $(( ${DEADLINE:-575} - $(el) )) --out build-gpu/cold_v --json $W/cold_v.json > $W/cold_v.txt 2>&1
echo "cold rc $? at $(el) s"
for x in build-gpu/cold_v/batch*/*/run/runs.jsonl; do
  b=$(basename "$(dirname "$(dirname "$(dirname "$x")")")"); k=$(basename "$(dirname "$(dirname "$x")")"); cp "$x" $W/cold_v_${b}_$k.jsonl
done
tail -16 $W/cold_v.txt
tar -cJf $OUT/call3.tar.xz -C $OUT call3 && rm -rf $W
echo "end $(el) s"
