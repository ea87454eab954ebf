#!/bin/bash
# call 2 (63395ba): where a re-setup's time goes (kprof, laplace7 n=250, auto, AMGT_RESETUP=auto,
# 3 steps drift dt after a 3-step warm-up sequence) and the cold columns of the seven small
# cases that read lowest in call 1 (one process each there), 8 processes a mode
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || exit 1
AMGT=auto AMGT_RESETUP=auto LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/rs.tsv timeout 150 build-gpu/bin/amgt-solve --problem laplace7 --n 250 --solver pcg --steps 3 --drift dt --repeat 1 > $OUT/kprof_resetup_run.txt 2>&1
echo "kprof rc $? at $(el) s"; grep -A8 "^   step" $OUT/kprof_resetup_run.txt
python3 .carry/kprof/report.py /tmp/rs.tsv --phase 'PCGSetup' --top 40 > $OUT/kprof_resetup.txt 2>&1; gzip -c /tmp/rs.tsv > $OUT/kprof_resetup.tsv.gz
AMGT=auto AMGT_RESETUP=auto AMGT_STATS=1 timeout 100 build-gpu/bin/amgt-solve --problem laplace7 --n 250 --solver pcg --steps 3 --drift dt --repeat 0 > $OUT/stats_resetup.txt 2>&1; echo "stats rc $? at $(el) s"
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv > /tmp/small.tsv
grep -E "^(Dubcova1|aniso7-n22|jnlbrng1|jump7-n22|laplace27-n22|memplus|poisson10000)	" /tmp/small.tsv > /tmp/low.tsv
timeout -s INT $(( 570 - $(el) )) ./scripts/run.sh --no-build --cases /tmp/low.tsv --modes stock,fp64,auto --repeat 1 --rounds 8 --no-plots --no-stats --timeout 60 --out /tmp/low > /tmp/low.log 2>&1
echo "cold low rc $? at $(el) s"; cp /tmp/low/summary.txt $OUT/low_summary.txt; cp /tmp/low/runs.jsonl $OUT/low_runs.jsonl; grep -A5 "^Cold" /tmp/low/summary.txt
echo "end $(el) s"
