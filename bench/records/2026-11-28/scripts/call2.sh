#!/bin/bash
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 100 ctest -R "ResetupDevice|Resetup\.|Steps|Drift|steps" -j 6 --output-on-failure) > $OUT/ctest_resetup.log 2>&1; echo "ctest resetup rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|memory \]" $OUT/ctest_resetup.log | head -12
L=build-gpu/bin/amg-lifecycle
for rs in off galerkin; do AMGT=fp64 AMGT_RESETUP=$rs timeout 60 $L resetup --n 6 --steps 1000 --rss-every 100 2>&1 | grep rss | sed -n '1p;$p' | tr '\n' ' '; echo " <- host rss $rs"; done
AMGT=auto AMGT_RESETUP=galerkin AMGT_STATS=1 timeout 60 $L resetup --device --n 40 --steps 4 --frozen-check --pcg > $OUT/frozen_auto.txt 2>&1; echo "frozen device rc $?"; grep -E "frozen|setups" $OUT/frozen_auto.txt | sort | uniq -c | sort -rn | head -8
AMGT=fp64 AMGT_RESETUP=galerkin timeout 60 $L resetup --device --n 40 --steps 4 --frozen-check --pcg 2>&1 | grep frozen | awk '{print $7}' | sort -g | tail -1 | sed 's/^/fp64 device frozen max diff /'
timeout 150 build-gpu/bin/amgt-kernel-bench --only galerkin --problem laplace7:250 --problem laplace27:100 --repeat 5 > $OUT/kb_galerkin.txt 2>&1; echo "kbench rc $? at $(el) s"; sed -n '/Galerkin products on a plan/,/total at/p' $OUT/kb_galerkin.txt | cut -c1-250 | head -30
export AMGT_BUILD_DIR=build-gpu
left=$(( 570 - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_steps.tsv --modes stock,stock-frozen,auto,auto-resetup --repeat 1 --no-plots --timeout 100 --out /tmp/st > /tmp/st.log 2>&1
echo "steps 1M rc $? at $(el) s"; cp /tmp/st/summary.txt $OUT/steps1m_summary.txt 2>/dev/null; cp /tmp/st/runs.jsonl $OUT/steps1m_runs.jsonl 2>/dev/null
grep -iE "re-setup|resetup|frozen|geomean|geometric" /tmp/st/summary.txt | head -40
