#!/bin/bash
# call 2: build (hypre_AMGTSuspend, amgt-solve --beside-stock, the mended tests), the changed
# tests, then the small-systems suite with stock timed beside each mode in the same processes
# (bench/beside_stock.py: three processes a case and mode, five runs each), and AMGT unset
# beside stock (the method's own spread, one process a case)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 60 ctest -R "Selection\.BesideStock|Selection\.StockKernelRule|Resetup\.Thousand|beside_stock_quick" -j 4 --output-on-failure) > $OUT/ctest_sel.log 2>&1; echo "ctest selected rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\[ memory \]" $OUT/ctest_sel.log | head -12
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv > /tmp/small.tsv
left=$(( 500 - $(el) ))
python3 bench/beside_stock.py --build build-gpu --cases /tmp/small.tsv --modes fp64,auto --procs 3 --repeat 5 --timeout 60 --deadline $left --json $OUT/beside.json > $OUT/beside.txt 2>&1
echo "beside rc $? at $(el) s"; tail -5 $OUT/beside.txt
left=$(( 555 - $(el) ))
python3 bench/beside_stock.py --build build-gpu --cases /tmp/small.tsv --modes unset --procs 1 --repeat 5 --timeout 30 --deadline $left --json $OUT/beside_null.json > $OUT/beside_null.txt 2>&1
echo "null rc $? at $(el) s"; tail -3 $OUT/beside_null.txt
echo "end $(el) s"
