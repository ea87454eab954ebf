#!/bin/bash
# record 2026-11-26d, device call 1: s12 = main + next/review-mends + next/stats-hint. GPU tests, SpMV kernel bench (review mends),
# kprof of auto setups with the statistics hint (A) and without it (B, planner sed, restored), 1M setup anatomy, solve anatomy
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
for p in fp32 fp64; do
  timeout 60 build-gpu/bin/amgt-kernel-bench --only spmv --problem laplace27:200 --device-only --setup-products 0 --repeat 5 --warmup 1 --precision $p > /tmp/kb.txt 2>&1; echo "kbench $p rc $?"
  sed -n '/== SpMV per layout/,/^$/p' /tmp/kb.txt > $OUT/kbench_layout_laplace27_200_$p.txt; grep -E "^laplace" $OUT/kbench_layout_laplace27_200_$p.txt | cut -c1-200
done
echo "kbench done $(( $(date +%s) - t0 )) s"
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
kp() { # case n mode phase tag
  AMGT=$3 LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 1 > /dev/null 2>&1
  echo "## $1 $2 $3 $4" >> $OUT/kprof_$5.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase "$4" --top 40 | awk '/== phase/{n++} n==2' >> $OUT/kprof_$5.txt 2>&1
}
for c in "systems3 126" "laplace7 250" "laplace27 200"; do kp $c auto AMGSetup hintA; done
grep -E "^##|stats|underflow|flat|plain" $OUT/kprof_hintA.txt | cut -c1-150
echo "kprof A $(( $(date +%s) - t0 )) s"
for m in off fp64 auto; do kp laplace7 100 $m AMGSetup m1; done
grep -E "^##|== phase|wall|busy|by category|Synchron|cudaMemcpy|cudaLaunch|amgt" $OUT/kprof_m1.txt | cut -c1-150 | head -60
for m in off auto; do kp laplace7 250 $m PCGSolve solve; done
grep -E "^##|== phase|wall|busy|by category" $OUT/kprof_solve.txt | cut -c1-150
echo "kprof 1M+solve $(( $(date +%s) - t0 )) s"
# B: the statistics hint off (main's order), planner rebuilt, then restored and touched
cp hypre_glue/planner.cpp /tmp/planner.cpp.orig
sed -i 's/const bool coarse = level > 0 \&\& a.nrows == a.ncols;/const bool coarse = false;/' hypre_glue/planner.cpp
grep -c "const bool coarse = false" hypre_glue/planner.cpp
timeout 150 cmake --build build-gpu -j 16 > /tmp/rb.log 2>&1 ; echo "rebuild B rc $? at $(( $(date +%s) - t0 )) s"
for c in "systems3 126" "laplace7 250" "laplace27 200"; do kp $c auto AMGSetup hintB; done
grep -E "^##|stats|underflow|flat|plain" $OUT/kprof_hintB.txt | cut -c1-150
cp /tmp/planner.cpp.orig hypre_glue/planner.cpp; touch hypre_glue/planner.cpp
timeout 100 cmake --build build-gpu -j 16 > /tmp/rb.log 2>&1; echo "rebuild restore rc $?"
echo "total $(( $(date +%s) - t0 )) s"
