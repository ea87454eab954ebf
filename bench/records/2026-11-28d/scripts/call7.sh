#!/bin/bash
# call 7 (a prebuilt sm_90 build carried from the development machine, build-cuda-full: the
# device time left could not hold a build): amg-lifecycle's 1000 re-setups against 1000 full
# setups, resident memory every 100 steps, with the preload on and off (the memory test failed
# in call 6); four small systems in alternating processes (stock, fp64, auto), warm and cold
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export LD_LIBRARY_PATH=$PWD/build-cuda-full/lib:$LD_LIBRARY_PATH
L=build-cuda-full/bin/amg-lifecycle
S=build-cuda-full/bin/amgt-solve
for pre in 1 0; do
  for rs in galerkin off; do
    AMGT=fp64 AMGT_RESETUP=$rs AMGT_PRELOAD=$pre timeout 25 $L resetup --n 6 --steps 1000 --rss-every 100 > /tmp/l.txt 2>&1
    echo "lifecycle preload=$pre resetup=$rs rc $? $(grep rss_sample_kib /tmp/l.txt | awk '{printf "%s@%s ", $2, $4}')"
  done
done > $OUT/rss.txt 2>&1
echo "rss at $(el) s"; cat $OUT/rss.txt | cut -c1-300
for r in 1 2 3 4; do
  for c in "ted_B --matrix .carry/matrices/ted_B.mtx.gz" "bcsstk16 --matrix .carry/matrices/bcsstk16.mtx.gz" "poisson10000 --matrix .carry/matrices/poisson10000.mtx.gz" "laplace27-n22 --problem laplace27 --n 22"; do
    set -- $c; lab=$1; shift
    for m in stock fp64 auto; do
      if [ $m = stock ]; then E="env -u AMGT"; else E="env AMGT=$m"; fi
      $E timeout 20 $S "$@" --solver pcg --repeat 3 > /tmp/o.txt 2>&1
      echo "small $lab $m $r $(grep -E '^  (time|cold)' /tmp/o.txt | tr -s ' ' | tr '\n' ' ')"
    done
  done
done > $OUT/small.txt 2>&1
echo "small at $(el) s"; head -3 $OUT/small.txt
echo "end $(el) s"
