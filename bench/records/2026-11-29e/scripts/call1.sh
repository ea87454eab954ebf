#!/bin/bash
# call 1: build; the GPU tests not run since their code changed (AMGT_SETUP_KERNELS=large's
# integration test, the preload's symbol walk: Selection.*, KernelImages*, Environment.*); kprof
# of a cold jump7 n=22 process in stock, fp64 and fp64-skl (the first setup's and solve's
# kernels, the default preload); then the cold A/B of the twelve lowest small cases, stock
# against fp64, fp64-skl, auto, auto-skl, round by round until the call's limit (call 2 goes on
# on the same machine; bench/cold_pairs.py pools the two).
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
if [ ! -x build-gpu/bin/amgt-solve ]; then
  scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
  echo "build $(el) s"
fi
mkdir -p /tmp/o
if [ "${TESTS:-1}" = 1 ]; then
  (cd build-gpu && timeout 150 ctest -R "Selection\.|KernelImages|Environment\." -j 8 --output-on-failure) > /tmp/o/ctest.log 2>&1
  echo "ctest rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\(Failed\)" /tmp/o/ctest.log | head -20
fi
if [ "${TRACES:-1}" = 1 ]; then
  CU=/usr/local/cuda
  g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -L$CU/extras/CUPTI/lib64 -lcupti -ldl -o /tmp/libkprof.so || exit 1
  for mode in off fp64 fp64-skl; do
    sk=""; a=$mode; [ $mode = fp64-skl ] && { a=fp64; sk=large; }
    for k in 1 2; do
      env AMGT=$a ${sk:+AMGT_SETUP_KERNELS=$sk} LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/o/jump7_${mode}_$k.tsv \
        timeout 60 build-gpu/bin/amgt-solve --problem jump7 --n 22 --solver pcg --repeat 0 > /tmp/o/jump7_${mode}_$k.log 2>&1
      python3 .carry/kprof/report.py /tmp/o/jump7_${mode}_$k.tsv --phase 'AMGSetup|PCGSolve' --top 200 > /tmp/o/jump7_${mode}_$k.txt 2>&1
    done
    grep -hE "^phase|wall" /tmp/o/jump7_${mode}_1.txt | head -6
  done
  echo "traces at $(el) s"
fi
tar cJf $OUT/call1_misc.tar.xz -C /tmp o
export AMGT_BUILD_DIR=build-gpu
low="Dubcova1|poisson10000|memplus|jnlbrng1|Muu|aniso7-n22|laplace7-n22|jump7-n22|fv1|fv2|fv3|ted_B"
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv | grep -E "^($low)	" > /tmp/low.tsv
echo "$(wc -l < /tmp/low.tsv) cases"
out=/tmp/low_$(date +%s)
left=$(( ${LIMIT:-570} - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/low.tsv --modes stock,fp64,fp64-skl,auto,auto-skl --repeat 1 \
  --rounds ${ROUNDS:-12} --no-plots --no-stats --timeout 60 --out $out > $out.log 2>&1
echo "runs rc $? at $(el) s"
cp $out/runs.jsonl $OUT/low_runs_${CALL:-1}.jsonl 2>/dev/null; cp $out/summary.txt $OUT/low_summary_${CALL:-1}.txt 2>/dev/null
python3 bench/cold_pairs.py $out/runs.jsonl 2>&1 | tail -70
echo "end $(el) s"
