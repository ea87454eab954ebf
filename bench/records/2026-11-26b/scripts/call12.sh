#!/bin/bash
# record 2026-11-26b, device call 12: 1M cases, interleaved processes: 6 rounds x 5 cases x 3 modes, --repeat 5 each
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
S=build-gpu/bin/amgt-solve
for r in 1 2 3 4 5 6; do
 for c in "laplace7 100" "laplace27 100" "systems3 69" "aniso7 100" "jump7 100"; do set -- $c
  for m in off fp64 auto; do
   [ $(( $(date +%s) - t0 )) -gt 570 ] && break 3
   AMGT=$m $S --problem $1 --n $2 --solver pcg --repeat 5 --json 2>/dev/null | tail -1 | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print(json.dumps({'round':$r,'case':'$1-n$2','mode':'$m','setup_all':d['setup_all'],'solve_all':d['solve_all'],'cold_setup_s':d['cold_setup_s'],'cold_solve_s':d['cold_solve_s'],'iterations':d['iterations']}))" >> $OUT/interleaved_1m.jsonl
  done
 done
 echo "round $r at $(( $(date +%s) - t0 )) s"
done
echo "total $(( $(date +%s) - t0 )) s"
