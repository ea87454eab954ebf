#!/bin/bash
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 5 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|numeric \]" $OUT/ctest_gpu.log | head -12
(cd build-gpu && timeout 60 ctest -R "Resetup\.|Steps\.|Mpi.Steps" -j 6 --output-on-failure) > $OUT/ctest_resetup.log 2>&1; echo "ctest resetup+steps rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|memory \]" $OUT/ctest_resetup.log | head -12
timeout 100 build-gpu/bin/amgt-kernel-bench --only galerkin --problem laplace7:250 --problem laplace27:100 --repeat 5 > $OUT/kb_galerkin.txt 2>&1; echo "kbench rc $? at $(el) s"; sed -n '/^matrix /,/total at/p' $OUT/kb_galerkin.txt | cut -c1-200 | head -14
export AMGT_BUILD_DIR=build-gpu
printf 'laplace7-n250-dt\t--problem laplace7 --n 250 --solver pcg --steps 6 --drift dt\nlaplace27-n200-dt\t--problem laplace27 --n 200 --solver pcg --steps 6 --drift dt\n' > /tmp/large.tsv
left=$(( 500 - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/large.tsv --modes stock,stock-frozen,auto-resetup --repeat 1 --no-plots --no-stats --timeout 150 --out /tmp/lg > /tmp/lg.log 2>&1
echo "steps large rc $? at $(el) s"; cp /tmp/lg/summary.txt $OUT/steps_large_summary.txt 2>/dev/null; cp /tmp/lg/runs.jsonl $OUT/steps_large_runs.jsonl 2>/dev/null
grep -A3 "Geometric mean speedup vs stock" /tmp/lg/summary.txt | head -5; grep -E "^  (stock|stock-frozen|auto-resetup) " /tmp/lg/summary.txt | cut -c1-140 | tail -8
left=$(( 585 - $(el) ))
[ $left -gt 40 ] && { printf 'jump7-n100-jump\t--problem jump7 --n 100 --solver pcg --steps 12 --drift jump\n' > /tmp/j.tsv; timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/j.tsv --modes stock,auto-resetup --repeat 1 --no-plots --timeout 60 --out /tmp/jp > /tmp/jp.log 2>&1; echo "jump rc $? at $(el) s"; cp /tmp/jp/summary.txt $OUT/steps_jump_summary.txt 2>/dev/null; grep -E "AMGT_STATS run|Geometric" -A2 /tmp/jp/summary.txt | cut -c1-220 | head -8; }
echo "end $(el) s"
