#!/bin/bash
# call 4 (a fresh machine): amgt-solve built with AMGT_SETUP_KERNELS=large's rule for a small
# application's hierarchy (setup_kernel_decision) and AMGT_STATS' entry-point time; each of the
# 21 small cases once a mode under AMGT_STATS (which setup kernels ran on the plugin, what was
# left to hypre and why, the host time of the plugin's entry points); then cold batches of the
# cases whose hierarchy held a block of the plugin's size (their earlier pairs measured the
# plugin's setup kernels there), every process pinned to cores 4-7
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=/tmp/w4; rm -rf $W; mkdir -p $W/stats
AMGT_TARGETS=amgt-solve scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv |
  grep -E "^(poisson10000|laplace7-n22|aniso7-n22|jump7-n22|fv1|fv2|fv3|aft01|memplus|systems3-n15|ted_B|Muu|jnlbrng1|laplace7-n31|aniso7-n31|jump7-n31|minsurfo|Dubcova1|laplace27-n22|bcsstk16|shallow_water1)\s" > /tmp/below.tsv
wc -l < /tmp/below.tsv
while IFS=$'\t' read -r name args; do
  for m in fp64 auto mixed; do
    # shellcheck disable=SC2086
    AMGT=$m AMGT_STATS=1 taskset -c 4-7 build-gpu/bin/amgt-solve $args --repeat 0 > $W/stats/${name}_$m.log 2>&1
  done
done < /tmp/below.tsv
echo "stats $(el) s"
grep -l "run by the plugin (AMGT_SETUP_KERNELS)" $W/stats/*.log | sed 's/^/plugin setup kernels: /'
grep -h "of them of blocks above it" $W/stats/*_fp64.log | wc -l
grep -l "of them of blocks above it" $W/stats/*_fp64.log | sed 's#.*/##; s/_fp64.log//' > $W/affected.txt
echo "affected: $(tr '\n' ' ' < $W/affected.txt)"
grep -h "plugin entry points" $W/stats/*.log | sed 's/.*setup 1 and its solves: //; s/;.*//' | sort -t, -k2 -n | tail -3
grep -E "^($(paste -sd'|' $W/affected.txt))\s" /tmp/below.tsv > /tmp/affected.tsv
taskset -c 4-7 python3 bench/cold_rounds.py --cases /tmp/affected.tsv --modes stock,fp64,auto,mixed --build build-gpu \
  --covariate probe_api_s --interval t --heterogeneity --deadline $(( 575 - $(el) )) --out build-gpu/cold_t --json $W/cold_t.json > $W/cold_t.txt 2>&1
echo "cold rc $? at $(el) s"
for x in build-gpu/cold_t/batch*/*/run/runs.jsonl; do
  b=$(basename "$(dirname "$(dirname "$(dirname "$x")")")"); k=$(basename "$(dirname "$(dirname "$x")")"); cp "$x" $W/cold_t_${b}_$k.jsonl
done
tail -24 $W/cold_t.txt
tar -cJf $OUT/call4.tar.xz -C $W .
echo "end $(el) s"
