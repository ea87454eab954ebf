#!/bin/bash
# call 2 (call 1's machine and build): the F-F weights a thread a row at every mean row
# (kThreadMean 32, rebuilt) under Nsight Compute on both problems; the source put back and
# rebuilt; then cold rounds of the 21 small cases with the probes (cold_rounds.py --covariate)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=/tmp/w2; rm -rf $W; mkdir -p $W/ncu
f=plugin/interp/twiaff_device.cu; cp $f /tmp/twiaff.bak
sed -i 's/constexpr int kThreadMean   = 8;/constexpr int kThreadMean   = 32;/' $f; grep -n "kThreadMean   =" $f
cmake --build build-gpu --target amgt-solve > $W/rebuild1.log 2>&1; echo "rebuild rc $? at $(el) s"
AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='twiaff' timeout 150 bench/setup_kernels_ncu.sh build-gpu $W/ncu \
  "laplace7-n250:--problem laplace7 --n 250" "laplace27-n200:--problem laplace27 --n 200" > $W/ncu/run.txt 2>&1
echo "ncu rc $? at $(el) s"; grep -E "twiaff" $W/ncu/*-n*.txt | cut -c1-200
rm -f $W/ncu/*.ncu-rep
cp /tmp/twiaff.bak $f
cmake --build build-gpu > $W/rebuild2.log 2>&1; echo "rebuild back rc $? at $(el) s"; grep -c "kThreadMean   = 8;" $f
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv |
  grep -E "^(poisson10000|laplace7-n22|aniso7-n22|jump7-n22|fv1|fv2|fv3|aft01|memplus|systems3-n15|ted_B|Muu|jnlbrng1|laplace7-n31|aniso7-n31|jump7-n31|minsurfo|Dubcova1|laplace27-n22|bcsstk16|shallow_water1)\s" > /tmp/below.tsv
python3 bench/cold_rounds.py --cases /tmp/below.tsv --modes stock,fp64,auto,mixed --build build-gpu --covariate probe_api_s \
  --resume .carry/prev/cold_k_batch1.jsonl .carry/prev/cold_k_batch2.jsonl \
  --deadline $(( 560 - $(el) )) --out build-gpu/cold_l --json $W/cold_l.json > $W/cold_l.txt 2>&1
echo "cold rc $? at $(el) s"
for x in build-gpu/cold_l/batch*/run/runs.jsonl; do cp $x $W/cold_l_$(basename $(dirname $(dirname $x))).jsonl; done
tail -30 $W/cold_l.txt
tar -cJf $OUT/call2.tar.xz -C $W .
echo "end $(el) s"
