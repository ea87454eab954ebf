#!/bin/bash
# call 2 (chained on call 1's machine and build): the large cases side by side, four modes,
# three processes a mode (stock = hypre's own kernels + pool; stock-default = hypre 2.32's
# default configuration: vendor SpGEMM/SpMV, no pool)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=$OUT/call2; mkdir -p $W
export AMGT_BUILD_DIR=build-gpu
timeout -s INT 560 ./scripts/run.sh --no-build --cases bench/cases_large.tsv --modes stock,stock-default,fp64,auto --repeat 2 --rounds 3 \
  --no-plots --no-stats --timeout 90 --out /tmp/lg > $W/large.log 2>&1
echo "large rc $? at $(el) s"; cp /tmp/lg/runs.jsonl /tmp/lg/summary.txt $W/; sed -n '/^Geometric mean/,$p' /tmp/lg/summary.txt | head -12
echo "end $(el) s"
