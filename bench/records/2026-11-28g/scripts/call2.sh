#!/bin/bash
# call 2 (build-gpu of call 1 kept): the large cases beside stock with and without the setup
# kernels; hypre's ij on its two large problems, AMGT unset against the modes
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
timeout 330 python3 bench/beside_stock.py --build build-gpu --cases bench/cases_large.tsv --modes fp64,fp64-sk,auto-sk --procs 1 --repeat 2 --timeout 150 --json $OUT/bs_large.json > $OUT/bs_large.txt 2>&1
echo "beside large rc $? at $(el) s"; tail -20 $OUT/bs_large.txt
timeout $(( 580 - $(el) )) python3 bench/ij_compare.py --build build-gpu --modes unset,fp64,auto,auto-sk --procs 1 --problems large --json $OUT/ij_large.json > $OUT/ij_large.txt 2>&1; echo "ij rc $? at $(el) s"; tail -14 $OUT/ij_large.txt
echo "end $(el) s"
