#!/bin/bash
# call 5 (a fresh machine, the session's last 330 s of device time): amgt-solve of the final code;
# warm, stock against each mode in the same processes (beside_stock.py: --beside-stock, the
# median of the processes' ratios), the five small cases whose hierarchy AMGT_SETUP_KERNELS=large's
# rule for a small application now leaves to hypre (the other sixteen run the code they ran before)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=$OUT/call5; mkdir -p $W
AMGT_TARGETS="amgt-solve" scripts/offline_build.sh .carry build-gpu > $W/build.log 2>&1 || { grep -E "error" $W/build.log | head -20; tail -30 $W/build.log; exit 1; }
echo "build $(el) s"
first="aniso7-n31|bcsstk16|jump7-n31|laplace27-n22|shallow_water1"
grep -E "^($first)\s" bench/cases_small.tsv > $W/warm.tsv
taskset -c 4-7 python3 bench/beside_stock.py --build build-gpu --cases $W/warm.tsv --matrices .carry/matrices \
  --modes fp64,auto,mixed --procs 3 --repeat 2 --deadline $(( ${DEADLINE:-280} - $(el) )) --json $W/warm.json > $W/warm.txt 2>&1
echo "warm rc $? at $(el) s"; cat $W/warm.txt | tail -40
tar -cJf $OUT/call5.tar.xz -C $OUT call5 && rm -rf $W
