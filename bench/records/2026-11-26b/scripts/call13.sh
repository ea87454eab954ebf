#!/bin/bash
# record 2026-11-26b, device call 13: AMGT_STATS of laplace27 (n=100, n=200) under fp64 and auto: per-level precision, layout, SpMV time
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
S=build-gpu/bin/amgt-solve
for n in 100 200; do for m in fp64 auto; do
  echo "## laplace27 n=$n $m" >> $OUT/stats_laplace27.txt
  AMGT=$m AMGT_STATS=1 $S --problem laplace27 --n $n --solver pcg --repeat 1 >> $OUT/stats_laplace27.txt 2>&1
done; done
echo "## systems3 n=126 auto" >> $OUT/stats_laplace27.txt
AMGT=auto AMGT_STATS=1 $S --problem systems3 --n 126 --solver pcg --repeat 1 >> $OUT/stats_laplace27.txt 2>&1
echo "total $(( $(date +%s) - t0 )) s"
