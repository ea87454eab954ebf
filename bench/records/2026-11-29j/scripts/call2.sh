#!/bin/bash
# call 2 (call 1's machine, warm, its build): call 1's kprof and AMGT_STATS processes again
# (their files did not come back: too many), packed in one archive
t0=$(date +%s)
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -L$CU/extras/CUPTI/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo "kprof build failed"
M=.carry/matrices
declare -A ARGS=( [fv1]="--matrix $M/fv1.mtx.gz --solver pcg" [ted_B]="--matrix $M/ted_B.mtx.gz --solver pcg"
                  [laplace27-n22]="--problem laplace27 --n 22 --solver pcg" )
W=/tmp/w; rm -rf $W; mkdir -p $W/k $W/s
for c in fv1 ted_B laplace27-n22; do
  for m in auto fp64; do AMGT=$m AMGT_STATS=1 timeout 20 build-gpu/bin/amgt-solve ${ARGS[$c]} --vendor-spgemm 0 --vendor-spmv 0 --pool 1 --repeat 0 > $W/s/${c}_$m.txt 2>&1; done
done
for i in 1 2 3 4; do
  for c in fv1 ted_B laplace27-n22; do
    for m in stock auto auto-np fp64; do
      case $m in stock) E="AMGT=off";; auto) E="AMGT=auto";; auto-np) E="AMGT=auto AMGT_PRELOAD=0";; fp64) E="AMGT=fp64";; esac
      env $E KPROF_DRIVER=1 LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=$W/k/${c}_${m}_$i.tsv timeout 30 \
        build-gpu/bin/amgt-solve ${ARGS[$c]} --vendor-spgemm 0 --vendor-spmv 0 --pool 1 --repeat 0 > $W/k/${c}_${m}_$i.log 2>&1 || echo "fail $c $m $i"
    done
  done
done
tar -cJf $OUT/k.tar.xz -C $W k s
echo "end $(( $(date +%s) - t0 )) s"; ls -la $OUT
