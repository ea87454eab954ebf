#!/bin/bash
# call 3 (build-gpu kept): the small cases beside stock with the setup kernels; hypre's ij on
# its 100^3 problems; a second process of the large cases
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
timeout 300 python3 bench/beside_stock.py --build build-gpu --cases bench/cases_small.tsv --matrices .carry/matrices --modes fp64-sk,auto-sk --procs 2 --repeat 4 --timeout 60 --deadline 260 --json $OUT/bs_small.json > $OUT/bs_small.txt 2>&1
echo "beside small rc $? at $(el) s"; tail -50 $OUT/bs_small.txt
timeout 120 python3 bench/ij_compare.py --build build-gpu --modes unset,fp64-sk,auto-sk --procs 2 --problems small --json $OUT/ij_small.json > $OUT/ij_small.txt 2>&1; echo "ij small rc $? at $(el) s"; tail -9 $OUT/ij_small.txt
timeout $(( 570 - $(el) )) python3 bench/ij_compare.py --build build-gpu --modes unset,fp64,fp64-sk,auto,auto-sk --procs 1 --problems large --json $OUT/ij_large2.json > $OUT/ij_large2.txt 2>&1; echo "ij large rc $? at $(el) s"; tail -14 $OUT/ij_large2.txt
echo "end $(el) s"
