#!/bin/bash
# call 1 (a fresh machine, c3cc258): build; the GPU tests of the preload's stop text and the
# drivers (ea235b7, c3cc258 ran compiled only); then where a small system's first setup and
# solve go under the plugin: kprof (kernels, copies, host and driver API calls) of cold processes
# of fv1, ted_B and laplace27 n=22 in stock, auto, auto-np (AMGT_PRELOAD=0) and fp64, modes
# interleaved; one AMGT_STATS process each; then more cold rounds of the 21 small cases below
# the preload's bound (bench/cold_rounds.py --resume with record 2026-11-29i's batches)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 100 ctest -j 8 -R "Selection|PreloadRule|Environment|DriverModes" --output-on-failure) > /tmp/ctest.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" /tmp/ctest.log | head -20
cp /tmp/ctest.log $OUT/
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -L$CU/extras/CUPTI/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo "kprof build failed"
M=.carry/matrices
declare -A ARGS=( [fv1]="--matrix $M/fv1.mtx.gz --solver pcg" [ted_B]="--matrix $M/ted_B.mtx.gz --solver pcg"
                  [laplace27-n22]="--problem laplace27 --n 22 --solver pcg" )
mkdir -p $OUT/k $OUT/s
for c in fv1 ted_B laplace27-n22; do
  for m in auto fp64; do AMGT=$m AMGT_STATS=1 timeout 20 build-gpu/bin/amgt-solve ${ARGS[$c]} --vendor-spgemm 0 --vendor-spmv 0 --pool 1 --repeat 0 > $OUT/s/${c}_$m.txt 2>&1; done
done
echo "stats $(el) s"
for i in 1 2 3 4; do
  for c in fv1 ted_B laplace27-n22; do
    for m in stock auto auto-np fp64; do
      case $m in stock) E="AMGT=off";; auto) E="AMGT=auto";; auto-np) E="AMGT=auto AMGT_PRELOAD=0";; fp64) E="AMGT=fp64";; esac
      env $E KPROF_DRIVER=1 LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=$OUT/k/${c}_${m}_$i.tsv timeout 30 \
        build-gpu/bin/amgt-solve ${ARGS[$c]} --vendor-spgemm 0 --vendor-spmv 0 --pool 1 --repeat 0 > $OUT/k/${c}_${m}_$i.log 2>&1 || echo "fail $c $m $i"
    done
  done
done
echo "kprof $(el) s"; ls $OUT/k | wc -l; du -sh $OUT/k
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv |
  grep -E "^(poisson10000|laplace7-n22|aniso7-n22|jump7-n22|fv1|fv2|fv3|aft01|memplus|systems3-n15|ted_B|Muu|jnlbrng1|laplace7-n31|aniso7-n31|jump7-n31|minsurfo|Dubcova1|laplace27-n22|bcsstk16|shallow_water1)\s" > /tmp/below.tsv
python3 bench/cold_rounds.py --cases /tmp/below.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --resume .carry/prev/cold_i_batch1.jsonl .carry/prev/cold_i_batch2.jsonl .carry/prev/cold_i_batch3.jsonl \
  --deadline $(( 560 - $(el) )) --out build-gpu/cold_j --json $OUT/cold_j.json > $OUT/cold_j.txt 2>&1
echo "cold rc $? at $(el) s"
for f in build-gpu/cold_j/batch*/run/runs.jsonl; do cp $f $OUT/cold_j_$(basename $(dirname $(dirname $f))).jsonl; done
tail -8 $OUT/cold_j.txt
echo "end $(el) s"
