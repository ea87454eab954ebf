#!/bin/bash
# call 4 (call 1's machine and build): the 1M cases in five modes (fp64 and auto against their
# AMGT_SETUP_KERNELS=large forms), three rounds; the large cases in stock, auto, auto-skl, three
# rounds (the call's limit cut the third); hypre's ij on its large problems, two processes a mode
export AMGT_BUILD_DIR=build-gpu; t0=$(date +%s)
timeout 150 ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,fp64-skl,auto,auto-skl --repeat 3 --rounds 3 --no-plots --no-stats --timeout 60 --out /tmp/m1b > /tmp/m1b.log 2>&1; echo "1M rc $? at $(( $(date +%s)-t0 ))"
timeout 160 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,auto,auto-skl --repeat 2 --rounds 3 --no-plots --no-stats --timeout 120 --out /tmp/lgb > /tmp/lgb.log 2>&1; echo "large rc $? at $(( $(date +%s)-t0 ))"
timeout 90 python3 bench/ij_compare.py --build build-gpu --modes unset,auto,auto-skl --procs 2 --problems large --json /tmp/ijb.json > /tmp/ijb.txt 2>&1; echo "ij rc $?"; tail -8 /tmp/ijb.txt
cd /tmp && for d in m1b lgb; do cp $d/summary.txt ${d}_summary.txt; cp $d/runs.jsonl ${d}_runs.jsonl; done
tar cJf $OUT/call4.tar.xz m1b_summary.txt m1b_runs.jsonl lgb_summary.txt lgb_runs.jsonl ijb.txt ijb.json m1b.log lgb.log; echo "end $(( $(date +%s)-t0 ))"
