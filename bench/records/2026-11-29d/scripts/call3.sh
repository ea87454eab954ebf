#!/bin/bash
# call 3 (call 2's machine and build): the small-systems suite's cold processes, stock against
# fp64 and auto (the preload with its first-use list), interleaved round by round, for the
# round-paired cold verdict (bench/cold_pairs.py pools this with call 4's)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export AMGT_BUILD_DIR=build-gpu
[ -x build-gpu/bin/amgt-solve ] || { echo "no build (a fresh machine)"; exit 1; }
timeout -s INT 570 ./scripts/run.sh --no-build --cases bench/cases_small.tsv --modes stock,fp64,auto --repeat 1 --rounds ${ROUNDS:-3} \
  --no-plots --no-stats --timeout 60 --out /tmp/suite > /tmp/suite.log 2>&1
echo "suite rc $? at $(el) s"
cp /tmp/suite/runs.jsonl $OUT/suite_runs.jsonl 2>/dev/null; cp /tmp/suite/summary.txt $OUT/suite_summary.txt 2>/dev/null
python3 bench/cold_pairs.py /tmp/suite/runs.jsonl 2>&1 | tail -60
echo "end $(el) s"
