#!/bin/bash
# call 5 (libHYPRE and amgt-solve built on the development machine, carried in build-carry/): the
# six cases of call 4 beside stock with the order of each pair drawn per process (a fixed order
# aliased with the setup-to-setup change of hypre's coarsening on laplace27 n=31: stock against
# stock 0.83-0.85 in calls 2-4), --repeat 8, three processes a case and mode, with the null
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export LD_LIBRARY_PATH=$PWD/build-carry/lib:$LD_LIBRARY_PATH
printf 'l27n31\t--problem laplace27 --n 31 --solver pcg\ns3n22\t--problem systems3 --n 22 --solver pcg\ns3n15\t--problem systems3 --n 15 --solver pcg\nl7n31\t--problem laplace7 --n 31 --solver pcg\nDubcova1\t--matrix build-carry/m/Dubcova1.mtx.gz --solver pcg\nted_B\t--matrix build-carry/m/ted_B.mtx.gz --solver pcg\n' > /tmp/five.tsv
timeout 100 python3 build-carry/beside_stock.py --build build-carry --cases /tmp/five.tsv --modes fp64,auto --null --procs 3 --repeat 8 --deadline 60 --json $OUT/beside_drawn.json > $OUT/beside_drawn.txt 2>&1
echo "even rc $? at $(el) s"; cat $OUT/beside_drawn.txt
echo "end $(el) s"
