#!/bin/bash
# call 6 (a fresh machine): build; the GPU tests of the strength, PMIS and F-F kernels (the
# strength kernel's fast path, PMIS's new cases), AutoVsFp64 at its GPU sizes, the docs check;
# Nsight Compute of the strength kernel (laplace7 n=250, laplace27 n=200, every size); then the
# lowest cold pairs of call 2 round by round until the call's limit
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 100 ctest -R "Strength|Pmis|Twiaff|AutoVsFp64|docs_commands|Selection\.SetupKernels" -j 8 --output-on-failure) > $OUT/ctest.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\*\*\*Failed|Timeout" $OUT/ctest.log | head -20
for p in "laplace7-n250:--problem laplace7 --n 250" "laplace27-n200:--problem laplace27 --n 200"; do
  AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='strength_kernel' timeout 60 bash bench/setup_kernels_ncu.sh build-gpu /tmp/ncu "$p" > /dev/null 2>&1
  echo "ncu ${p%%:*} rc $? at $(el) s"; cat /tmp/ncu/${p%%:*}.txt
done
cp /tmp/ncu/*.txt $OUT/ 2>/dev/null
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv | grep -E "^(aniso7-n31|fv2|jump7-n22|poisson10000|ted_B)	" > /tmp/low.tsv
out=/tmp/cold_$(date +%s)
left=$(( ${LIMIT:-345} - $(el) ))
[ $left -gt 20 ] && timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/low.tsv --modes stock,fp64,auto,mixed --repeat 1 \
  --rounds 12 --no-plots --no-stats --timeout 60 --out $out > $out.log 2>&1
echo "cold rc $? at $(el) s"
cp $out/runs.jsonl $OUT/cold_low.jsonl 2>/dev/null
python3 bench/cold_pairs.py $out/runs.jsonl 2>&1 | tail -24
echo "end $(el) s"
