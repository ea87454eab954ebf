#!/bin/bash
# next session, call 1: build (the setup kernels on by default); the cold columns of the small
# suite with them (issue 42's last unmeasured target): all 38 cases, 3 processes a mode, then
# the six that read lowest before, 8 processes; stock / fp64 / auto and hypre's setup kernels
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 120 ctest -R "Selection\.SetupKernels|RowSums|Truncation|Mpi\." -j 8 --output-on-failure) > $OUT/ctest_sk.log 2>&1; echo "ctest setup kernels rc $? at $(el) s"; grep -E "tests passed|Failed|\[ residual \]" $OUT/ctest_sk.log | head
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv > /tmp/small.tsv
timeout -s INT 200 ./scripts/run.sh --no-build --cases /tmp/small.tsv --modes stock,fp64,auto --repeat 1 --rounds 3 --no-plots --no-stats --timeout 60 --out /tmp/cold > /tmp/cold.log 2>&1
echo "cold 38 rc $? at $(el) s"; cp /tmp/cold/summary.txt $OUT/cold_summary.txt; cp /tmp/cold/runs.jsonl $OUT/cold_runs.jsonl; grep -A5 "^Cold" /tmp/cold/summary.txt
grep -E "^(aft01|bcsstk16|fv3|laplace7-n22|systems3-n15|aniso7-n22)	" /tmp/small.tsv > /tmp/six.tsv
timeout -s INT $(( 560 - $(el) )) ./scripts/run.sh --no-build --cases /tmp/six.tsv --modes stock,fp64,auto,fp64-hsk --repeat 1 --rounds 8 --no-plots --no-stats --timeout 60 --out /tmp/cold6 > /tmp/cold6.log 2>&1
echo "cold 6 rc $? at $(el) s"; cp /tmp/cold6/summary.txt $OUT/cold6_summary.txt; grep -A6 "^Cold" /tmp/cold6/summary.txt
echo "end $(el) s"
