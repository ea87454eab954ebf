#!/bin/bash
# record 2026-11-26e, device call 2: timelines of small products (row-wise one_pass vs hypre) under kprof
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/kb.tsv timeout 100 build-gpu/bin/amgt-kernel-bench --only spgemm --problem laplace7:40 --repeat 3 --warmup 1 > $OUT/kbench_l7_40.txt 2>&1; echo "kbench rc $?"
python3 .carry/timeline.py /tmp/kb.tsv bound_rows 80 0 > $OUT/timeline_rows.txt
python3 .carry/timeline.py /tmp/kb.tsv SpGemmGhashSize 80 0 > $OUT/timeline_hypre.txt
python3 .carry/kall.py /tmp/kb.tsv > $OUT/kall.txt
wc -l $OUT/*.txt
