#!/bin/bash
# call 3: the diagonal passes on the plugin's kernel (patch 0009), the short-row product design,
# amgt-solve --update direct; their GPU tests; AMGT_STATS; the large step sequences (stock,
# auto-resetup); the short-row product against the others (kernel bench); the large cases
# beside stock (auto, fp64)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 100 ctest -R "CsrDiag|ShortRows|CsrSpgemmDevice|Selection\.SetupKernels|Resetup|Steps|UpdateDirect|Update" -j 8 --output-on-failure > $OUT/ctest_new.log 2>&1; echo "ctest new rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|\[ residual \]" $OUT/ctest_new.log | head -24
cd ..
AMGT=fp64 AMGT_STATS=1 timeout 40 build-gpu/bin/amgt-solve --problem laplace7 --n 100 --solver pcg --repeat 1 > $OUT/stats_l7.txt 2>&1; echo "stats rc $?"; grep -iE "setup kernels run|iterations, rel" $OUT/stats_l7.txt | head -3
export AMGT_BUILD_DIR=build-gpu
timeout -s INT 260 ./scripts/run.sh --no-build --cases bench/cases_steps_large.tsv --modes stock,auto-resetup --repeat 1 --no-plots --no-stats --timeout 120 --out /tmp/sl > /tmp/sl.log 2>&1
echo "steps large rc $? at $(el) s"; cp /tmp/sl/summary.txt $OUT/steps_large_summary.txt 2>/dev/null; cp /tmp/sl/runs.jsonl $OUT/steps_large_runs.jsonl 2>/dev/null
grep -E "^  (stock|auto-resetup) +ok|per step|AMGT: setups" /tmp/sl/summary.txt | cut -c1-170 | head -20
grep -A6 "^Geometric" /tmp/sl/summary.txt
AMGT=auto AMGT_RESETUP=auto AMGT_STATS=1 timeout 60 build-gpu/bin/amgt-solve --problem jump7 --n 200 --solver pcg --steps 10 --drift jump --repeat 0 > $OUT/stats_jump.txt 2>&1; echo "stats jump rc $? at $(el) s"; grep -E "AMGT: setups" $OUT/stats_jump.txt
left=$(( 575 - $(el) )); [ $left -gt 40 ] || exit 0
timeout $(( left > 90 ? 90 : left )) build-gpu/bin/amgt-kernel-bench --only spgemm --problem laplace7:250 --device-only --setup-products 1 --repeat 3 --warmup 1 > $OUT/kbench_spgemm.txt 2>&1; echo "kbench rc $? at $(el) s"; grep -E "L0 A\*P|geomean" $OUT/kbench_spgemm.txt | head -12
left=$(( 575 - $(el) )); [ $left -gt 60 ] || exit 0
timeout $left python3 bench/beside_stock.py --build build-gpu --cases bench/cases_large.tsv --modes auto,fp64 --procs 1 --repeat 2 --timeout 100 --json $OUT/bs_large.json > $OUT/bs_large.txt 2>&1; echo "beside rc $? at $(el) s"; tail -14 $OUT/bs_large.txt
echo "end $(el) s"
