#!/bin/bash
# call 7 (call 5's build): the large cases beside stock in the same processes, two processes a
# case, fp64 and auto with the setup kernels on by default
timeout 200 python3 bench/beside_stock.py --build build-gpu --cases bench/cases_large.tsv --modes auto,fp64 --procs 2 --repeat 2 --timeout 100 --json $OUT/bs_large.json > $OUT/bs_large.txt 2>&1; echo rc $?; tail -14 $OUT/bs_large.txt
