#!/bin/bash
# call 3 (a fresh machine, 24445ae: the driver's host-speed probes): build; the driver's timing
# tests; then more cold rounds of the 21 small cases below the preload's bound, every process
# with its probes (bench/cold_rounds.py --resume with record 2026-11-29i's batches and call 1's),
# for cold_pairs.py --covariate probe_api_s / probe_cpu_s; everything back in one archive
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
W=/tmp/w; rm -rf $W; mkdir -p $W
(cd build-gpu && timeout 100 ctest -j 8 -R "driver_modes|DriverModes|Timing" --output-on-failure) > $W/ctest.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $W/ctest.log | head -20
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv |
  grep -E "^(poisson10000|laplace7-n22|aniso7-n22|jump7-n22|fv1|fv2|fv3|aft01|memplus|systems3-n15|ted_B|Muu|jnlbrng1|laplace7-n31|aniso7-n31|jump7-n31|minsurfo|Dubcova1|laplace27-n22|bcsstk16|shallow_water1)\s" > /tmp/below.tsv
python3 bench/cold_rounds.py --cases /tmp/below.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --resume .carry/prev/cold_i_batch1.jsonl .carry/prev/cold_i_batch2.jsonl .carry/prev/cold_i_batch3.jsonl \
           .carry/prev/cold_j_batch1.jsonl .carry/prev/cold_j_batch2.jsonl \
  --deadline $(( 485 - $(el) )) --out build-gpu/cold_k --json $W/cold_k.json > $W/cold_k.txt 2>&1
echo "cold rc $? at $(el) s"
for f in build-gpu/cold_k/batch*/run/runs.jsonl; do cp $f $W/cold_k_$(basename $(dirname $(dirname $f))).jsonl; done
tail -4 $W/cold_k.txt
ls build-gpu/cold_k/batch*/run/runs.jsonl > /dev/null 2>&1 && python3 bench/cold_pairs.py build-gpu/cold_k/batch*/run/runs.jsonl --covariate probe_api_s 2>&1 | tail -12
tar -cJf $OUT/call3.tar.xz -C $W .
echo "end $(el) s"
