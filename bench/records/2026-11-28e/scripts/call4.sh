#!/bin/bash
# call 4 (too little device time for a build: libHYPRE and amgt-solve of this commit built on the
# development machine, sm_90, carried in build-carry/): the cases below 0.98 in calls 2-3 beside
# stock again with the even repeat (the order stock, mode, mode, stock: call 2's odd repeat
# gave stock against stock 0.85 on laplace27 n=31), three processes a case and mode, with the null
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export LD_LIBRARY_PATH=$PWD/build-carry/lib:$LD_LIBRARY_PATH
printf 'l27n31\t--problem laplace27 --n 31 --solver pcg\ns3n22\t--problem systems3 --n 22 --solver pcg\ns3n15\t--problem systems3 --n 15 --solver pcg\nl7n31\t--problem laplace7 --n 31 --solver pcg\nDubcova1\t--matrix build-carry/m/Dubcova1.mtx.gz --solver pcg\nted_B\t--matrix build-carry/m/ted_B.mtx.gz --solver pcg\n' > /tmp/five.tsv
timeout 200 python3 build-carry/beside_stock.py --build build-carry --cases /tmp/five.tsv --modes fp64,auto --null --procs 3 --repeat 6 --deadline 150 --json $OUT/beside_even.json > $OUT/beside_even.txt 2>&1
echo "even rc $? at $(el) s"; cat $OUT/beside_even.txt
echo "end $(el) s"
# the second command of call 4, on the same warm machine (run as the command line itself):
#   export LD_LIBRARY_PATH=$PWD/build-carry/lib; for i in 1 2; do build-carry/bin/amgt-solve --problem laplace27 --n 31 --solver pcg --repeat 16 | grep -E "setup all|solve all"; done; build-carry/bin/amgt-solve --problem laplace27 --n 31 --solver pcg --repeat 8 --beside-stock | grep -E "setup all|stock setups|vs stock"
