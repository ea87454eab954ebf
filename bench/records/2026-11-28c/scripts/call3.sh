#!/bin/bash
# call 3: where a cold process's first setup goes (kprof, default lazy loading), small matrices
# and a 1M one-shot; then one-shot first setups without kprof, several processes interleaved
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || exit 1
S=build-gpu/bin/amgt-solve
mkdir -p $OUT/kprof
run_mode() { # mode label args...
  local m=$1; shift; local l=$1; shift
  if [ "$m" = stock ]; then env -u AMGT "$@"; else AMGT=$m "$@"; fi
}
for c in "ted_B --matrix .carry/matrices/ted_B.mtx.gz" "sw1 --matrix .carry/matrices/shallow_water1.mtx.gz" "l27 --problem laplace27 --n 100"; do
  set -- $c; lab=$1; shift
  for m in stock fp64 auto; do
    LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=$OUT/kprof/${lab}_$m.tsv run_mode $m x $S "$@" --solver pcg --repeat 1 > $OUT/kprof/${lab}_$m.out 2>&1
    echo "kprof $lab $m rc $?"
  done
done
IJS="-solver 1 -pmis -interptype 6 -Pmx 4 -tr 0.1 -rlx 18 -th 0.25 -mxrs 0.8 -mxl 7 -tol 1e-8 -benchmark 1 -mm_vendor 0 -mv_vendor 0"
for m in stock auto; do
  LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=$OUT/kprof/ij7_$m.tsv run_mode $m x build-gpu/bin/ij -laplacian -n 100 100 100 $IJS > $OUT/kprof/ij7_$m.out 2>&1; echo "kprof ij7 $m rc $?"
done
echo "kprof done $(el) s"
# one-shot first setups (no kprof), 5 processes a mode interleaved
for r in 1 2 3 4 5; do
  for m in stock fp64 auto; do
    for c in "ted_B --matrix .carry/matrices/ted_B.mtx.gz" "l27 --problem laplace27 --n 100" "l7 --problem laplace7 --n 100"; do
      set -- $c; lab=$1; shift
      run_mode $m x $S "$@" --solver pcg --repeat 0 > /tmp/o.txt 2>&1
      echo "oneshot $lab $m $r $(grep -E '^  time' /tmp/o.txt | tr -s ' ')"
    done
  done
  AMGT=auto AMGT_PRELOAD=0 $S --problem laplace27 --n 100 --solver pcg --repeat 0 > /tmp/o.txt 2>&1; echo "oneshot l27 auto-nopreload $r $(grep -E '^  time' /tmp/o.txt | tr -s ' ')"
  CUDA_MODULE_LOADING=EAGER AMGT=auto $S --problem laplace27 --n 100 --solver pcg --repeat 0 > /tmp/o.txt 2>&1; echo "oneshot l27 auto-eager $r $(grep -E '^  time' /tmp/o.txt | tr -s ' ')"
done
cp /tmp/o.txt $OUT/last_oneshot.txt
echo "end $(el) s"
