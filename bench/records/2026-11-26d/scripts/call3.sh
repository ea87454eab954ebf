#!/bin/bash
# record 2026-11-26d, device call 3: auto's floor with fp16 from level 1 (auto-sh) against auto and stock, large cases; ij AMG-GMRES 1e-12 at 1M rows
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
AMGT=auto AMGT_LEVELS=s,h AMGT_STATS=1 timeout 60 build-gpu/bin/amgt-solve --problem laplace7 --n 160 --solver pcg --repeat 1 > $OUT/stats_l7_160_autosh.txt 2>&1
grep -E "^ +[0-9] |iterations|Iterations" $OUT/stats_l7_160_autosh.txt | head -24 | cut -c1-200
for e in "AMGT=off" "AMGT=auto" "AMGT=auto AMGT_LEVELS=s,h"; do
  env $e timeout 60 build-gpu/bin/ij -27pt -n 100 100 100 -solver 3 -tol 1e-12 -interptype 18 -agg_nl 1 -Pmx 4 > /tmp/ij.txt 2>&1
  echo "ij gmres 1e-12 [$e]: $(grep -E 'GMRES Iterations|Final GMRES Relative' /tmp/ij.txt | tr '\n' ' ')"
done
echo "ij $(( $(date +%s) - t0 )) s"
left=$(( 590 - ($(date +%s) - t0) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,auto,auto-sh --repeat 3 --no-stats --no-plots --timeout 120 --out $OUT/large > /tmp/large.log 2>&1
echo "large rc $? at $(( $(date +%s) - t0 )) s"
grep -vE '^\[|^run ' /tmp/large.log | tail -50
