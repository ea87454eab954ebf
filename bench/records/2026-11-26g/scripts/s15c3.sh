#!/bin/bash
# record 2026-11-26g, device call 3 (warm machine of call 2): end to end, survey on (auto, fp64) and off (auto-each) side by side
set -o pipefail
t0=$(date +%s)
[ -x build-gpu/bin/amgt-solve ] || { scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }; }
echo "build $(( $(date +%s) - t0 )) s"
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so && \
AMGT=auto LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 build-gpu/bin/amgt-solve --problem laplace7 --n 100 --solver pcg --repeat 2 > /dev/null 2>&1 && \
python3 .carry/tl2.py /tmp/k.tsv flat_stats_batch 1 300 3000 > $OUT/timeline_survey.txt 2>&1; wc -l $OUT/timeline_survey.txt
export AMGT_BUILD_DIR=build-gpu
R="./scripts/run.sh --no-build --no-stats --no-plots --timeout 120"
timeout -s INT 270 $R --cases bench/cases_1m.tsv --modes stock,fp64,auto,auto-each --repeat 5 --rounds 2 --out $OUT/m1 > /tmp/m1.log 2>&1; echo "1m rc $? at $(( $(date +%s) - t0 )) s"
grep -vE '^\[|^run ' /tmp/m1.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode " | head -60
left=$(( 560 - ($(date +%s) - t0) ))
timeout -s INT $left $R --cases bench/cases_large.tsv --modes stock,fp64,auto,auto-each --repeat 3 --out $OUT/large > /tmp/large.log 2>&1; echo "large rc $? at $(( $(date +%s) - t0 )) s"
grep -vE '^\[|^run ' /tmp/large.log | grep -E "^[a-z].*\(|^  (stock|fp64|auto)|Geometric|mode " | head -50
rm -rf $OUT/*/logs
echo "total $(( $(date +%s) - t0 )) s"
