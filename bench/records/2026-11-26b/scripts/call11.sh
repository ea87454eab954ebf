#!/bin/bash
# record 2026-11-26b, device call 11: per-process spread of the 1M plugin setups: preload on/off, 8 processes each
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
S=build-gpu/bin/amgt-solve
for cfg in "AMGT=off" "AMGT=fp64" "AMGT=fp64 AMGT_PRELOAD=0" "AMGT=auto" "AMGT=auto AMGT_PRELOAD=0"; do
 line="$cfg:"
 for i in 1 2 3 4 5 6 7 8; do
  v=$(env $cfg $S --problem laplace27 --n 100 --solver pcg --repeat 5 --json 2>/dev/null | python3 -c "import json,sys,statistics; d=json.loads(sys.stdin.read().strip().splitlines()[-1]); print('%.1f'%(statistics.median(d['setup_all'])*1e3))" 2>/dev/null)
  line="$line $v"
 done
 echo "$line" | tee -a $OUT/spread.txt
done
AMGT=fp64 AMGT_STATS=1 $S --problem laplace27 --n 100 --solver pcg --repeat 5 > $OUT/stats_l27_fp64.txt 2>&1
echo "total $(( $(date +%s) - t0 )) s"
