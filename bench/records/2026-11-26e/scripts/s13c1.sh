#!/bin/bash
# record 2026-11-26e, device call 1: next/review-mends-12 (GPU tests, auto setups' statistics), SpGEMM kernel bench on the large cases, per-kernel split
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
kp() { # case n mode phase tag
  AMGT=$3 LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 1 > /dev/null 2>&1
  echo "## $1 $2 $3 $4" >> $OUT/kprof_$5.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase "$4" --top 40 | awk '/== phase/{n++} n==2' >> $OUT/kprof_$5.txt 2>&1
}
for c in "systems3 126" "laplace7 250" "laplace27 200"; do kp $c auto AMGSetup auto; done
grep -E "^##|== phase|stats|underflow|flat|plain" $OUT/kprof_auto.txt | cut -c1-150
echo "kprof $(( $(date +%s) - t0 )) s"
AMGT=off LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/kb.tsv timeout 150 build-gpu/bin/amgt-kernel-bench --only spgemm --problem laplace7:160 --repeat 3 --warmup 1 > $OUT/kbench_spgemm_l7_160.txt 2>&1; echo "kbench l7 160 (kprof) rc $? at $(( $(date +%s) - t0 )) s"
python3 .carry/kall.py /tmp/kb.tsv > $OUT/kall_l7_160.txt; head -45 $OUT/kall_l7_160.txt
grep -A12 "Geometric" $OUT/kbench_spgemm_l7_160.txt | grep -i spgemm
timeout 250 build-gpu/bin/amgt-kernel-bench --only spgemm --problem laplace7:250 --problem laplace27:200 --repeat 3 --warmup 1 > $OUT/kbench_spgemm_large.txt 2>&1; echo "kbench large rc $? at $(( $(date +%s) - t0 )) s"
grep -A12 "Geometric" $OUT/kbench_spgemm_large.txt | grep -i spgemm
echo "total $(( $(date +%s) - t0 )) s"
