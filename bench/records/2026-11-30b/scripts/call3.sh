#!/bin/bash
# call 3 (chained on call 2's machine): aniso7 n=31 cold, the case-mode left lowest (fp64):
# six processes each of stock and fp64 interleaved under kprof (kernels, copies, runtime and
# driver calls), three fp64 processes under AMGT_STATS, six each of stock, fp64 and fp64 without
# the preload plain; every process pinned to cores 4-7; as run (one line), spread out here
W=/tmp/w3; mkdir -p $W; CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -L$CU/extras/CUPTI/lib64 -I$CU/extras/CUPTI/include \
  -lcupti -ldl -o /tmp/libkprof.so 2>$W/kprof_build.log; echo kprof $?
B=build-gpu/bin/amgt-solve
for r in 1 2 3 4 5 6; do for m in stock fp64; do
  if [ $m = stock ]; then e="env -u AMGT"; else e="env AMGT=$m"; fi
  $e LD_PRELOAD=/tmp/libkprof.so KPROF_DRIVER=1 KPROF_OUT=$W/k_${m}_$r.tsv taskset -c 4-7 $B --problem aniso7 --n 31 --solver pcg --repeat 0 > $W/k_${m}_$r.log 2>&1
done; done
for r in 1 2 3; do AMGT=fp64 AMGT_STATS=1 taskset -c 4-7 $B --problem aniso7 --n 31 --solver pcg --repeat 0 > $W/stats_fp64_$r.log 2>&1; done
for r in 1 2 3 4 5 6; do for m in stock fp64 fp64np; do
  case $m in stock) e="env -u AMGT";; fp64) e="env AMGT=fp64";; fp64np) e="env AMGT=fp64 AMGT_PRELOAD=0";; esac
  $e taskset -c 4-7 $B --problem aniso7 --n 31 --solver pcg --repeat 0 > $W/plain_${m}_$r.log 2>&1
done; done
ls $W | wc -l; tail -30 $W/stats_fp64_1.log; tar -cJf $OUT/call3.tar.xz -C $W .
