#!/bin/bash
# call 4 (a fresh nvidia-h200-x2 machine): amgt-solve built; three of bench/cases_np2.tsv's
# cases on one rank (GPU 0) and on two ranks (a GPU each), stock, fp64 and auto side by side;
# then one two-rank auto run under AMGT_STATS=all (each rank's table: the setup kernels and
# off-diagonal blocks the plugin took)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=$OUT/call4; mkdir -p $W
nvidia-smi -L
AMGT_TARGETS="amgt-solve" scripts/offline_build.sh .carry build-gpu > $W/build.log 2>&1 || { grep -E "error" $W/build.log | head -20; tail -30 $W/build.log; exit 1; }
echo "build $(el) s"
grep -E "laplace7-n200|laplace27-n200|systems3-n160" bench/cases_np2.tsv > /tmp/np2.tsv
export AMGT_BUILD_DIR=build-gpu
timeout -s INT $(( 540 - $(el) )) ./scripts/run.sh --no-build --cases /tmp/np2.tsv --modes stock,fp64,auto --np 1,2 --repeat 2 \
  --no-plots --no-stats --timeout 120 --out /tmp/np2 > $W/np2.log 2>&1
echo "np2 rc $? at $(el) s"; cp /tmp/np2/runs.jsonl /tmp/np2/summary.txt $W/; grep -E "^\[amgt\] \[" $W/np2.log | cut -c1-170
sed -n '/^Geometric mean/,$p' /tmp/np2/summary.txt | head -30
left=$(( 585 - $(el) ))
[ $left -gt 30 ] && AMGT=auto AMGT_STATS=all timeout $left mpirun --oversubscribe --allow-run-as-root -np 2 build-gpu/bin/amgt-solve --problem laplace27 --n 200 --solver pcg --repeat 1 > $W/stats_np2.txt 2>&1
echo "stats rc $? at $(el) s"; grep -iE "statistics \(rank|setup kernel|off-diagonal|iterations|converged" $W/stats_np2.txt | head -30
echo "end $(el) s"
