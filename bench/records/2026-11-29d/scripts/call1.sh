#!/bin/bash
# call 1 (HEAD before the change): build; the kernels a cold process's first setup and solve
# launch, in order (kprof, AMGT_PRELOAD=0 so that only the application's launches show), for the
# first-use list of the preload; kprof of warm setups at 1M rows (host API counts: issue 41 item 4)
# (the transfer brings back a limited count of files: the traces written to $OUT/trace did not
# come back; the same trace commands ran again on the same machine right after, writing to
# /tmp/trace and packing it: tar cJf $OUT/traces.tar.xz -C /tmp trace; the 1M reports likewise
# from /tmp: tar cJf $OUT/call1_sync.tar.xz -C /tmp sync_*.tsv)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -L$CU/extras/CUPTI/lib64 -lcupti -ldl -o /tmp/libkprof.so || exit 1
S=build-gpu/bin/amgt-solve
M=../shared/datasets/matrices
[ -d $M ] || M=.carry/matrices
mkdir -p $OUT/trace
i=0
trace() { # name mode args...
  local name=$1 mode=$2; shift 2
  i=$((i+1))
  env AMGT=$mode AMGT_PRELOAD=0 LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=$OUT/trace/$(printf %02d $i)_${name}_${mode}.tsv \
    timeout 60 $S "$@" --repeat 0 > $OUT/trace/$(printf %02d $i)_${name}_${mode}.log 2>&1
  echo "trace $i $name $mode rc $? at $(el) s"
}
trace memplus fp64 --matrix $M/memplus.mtx.gz --solver pcg
trace memplus auto --matrix $M/memplus.mtx.gz --solver pcg
trace jnlbrng1 fp64 --matrix $M/jnlbrng1.mtx.gz --solver pcg
trace ted_B auto --matrix $M/ted_B.mtx.gz --solver pcg
trace laplace27-n22 fp64 --problem laplace27 --n 22 --solver pcg
trace systems3-n15 auto --problem systems3 --n 15 --solver pcg
trace laplace7-n100 fp64 --problem laplace7 --n 100 --solver pcg
trace laplace7-n100 auto --problem laplace7 --n 100 --solver pcg
trace laplace27-n100 auto --problem laplace27 --n 100 --solver pcg
trace laplace27-n22 auto --problem laplace27 --n 22 --solver gmres
ls $OUT/trace | head -3; du -sh $OUT/trace
# 1M rows, warm setups: what the host waits for (three setups: warm-up, two timed)
mkdir -p $OUT/sync
for p in "laplace7 100" "laplace27 100"; do set -- $p
  for mode in off fp64 auto; do
    env AMGT=$mode LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/sync_$1_$mode.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 2 > $OUT/sync/$1_$mode.log 2>&1
    python3 .carry/kprof/report.py /tmp/sync_$1_$mode.tsv --phase 'AMGSetup' --top 25 > $OUT/sync/$1_${mode}_setup.txt 2>&1
    xz -T4 -c /tmp/sync_$1_$mode.tsv > $OUT/sync/$1_$mode.tsv.xz
    echo "sync $1 $mode at $(el) s"
  done
done
grep -hE "^phase|wall|Synchronize|Memcpy" $OUT/sync/laplace7_*_setup.txt | head -40
echo "end $(el) s"
