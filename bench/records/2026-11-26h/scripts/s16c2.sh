#!/bin/bash
# record 2026-11-26h, device call 2: where the first setup of a process goes (kprof with driver calls), stock / fp64 / auto; cold timings lazy vs eager
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
for c in "aniso7 100" "laplace27 100"; do for m in off fp64 auto; do
  set -- $c
  AMGT=$m KPROF_DRIVER=1 LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 1 > /tmp/o.txt 2>&1
  echo "## $1 $2 AMGT=$m $(grep -E '^  cold' /tmp/o.txt)" >> $OUT/cold_kprof.txt
  python3 .carry/cold.py /tmp/k.tsv 25 >> $OUT/cold_kprof.txt 2>&1
done; done
echo "kprof done at $(( $(date +%s) - t0 )) s"
for c in "aniso7 100" "laplace27 100"; do for ml in "off lazy" "fp64 lazy" "auto lazy" "off eager" "fp64 eager"; do
  set -- $c $ml
  L=LAZY; [ $4 = eager ] && L=EAGER
  line=""
  for r in 1 2 3 4; do
    CUDA_MODULE_LOADING=$L AMGT=$3 timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 2 > /tmp/o.txt 2>&1
    line="$line $(grep -E '^  cold' /tmp/o.txt | awk '{print $4}' | tr -d ,) / $(grep -E '^  time' /tmp/o.txt | awk '{print $4}' | tr -d ,)"
  done
  echo "$1 $2 AMGT=$3 $4: cold setup / warm setup (s):$line" | tee -a $OUT/cold_times.txt
done; done
echo "total $(( $(date +%s) - t0 )) s"
