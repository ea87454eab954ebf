#!/bin/bash
# calls 3 and 4 (798455c, the code of 1d8af34: the preload image by image): the cold processes of
# the 21 small cases whose round-paired cold ratio read below 1.2 in a round of record
# 2026-11-28h (call 1), stock against fp64 and auto, interleaved round by round; call 4 runs on
# call 3's machine and build. bench/cold_pairs.py pools the two calls' outputs.
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
if [ ! -x build-gpu/bin/amgt-solve ]; then
  scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
  echo "build $(el) s"
fi
export AMGT_BUILD_DIR=build-gpu
low="Dubcova1|poisson10000|memplus|jnlbrng1|Muu|aniso7-n22|laplace27-n22|shallow_water1|laplace7-n31|jump7-n22|minsurfo"
low="$low|bcsstk16|laplace7-n22|systems3-n15|aft01|fv1|ted_B|laplace7-n46|fv3|fv2|systems3-n22"
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv | grep -E "^($low)	" > /tmp/low.tsv
echo "$(wc -l < /tmp/low.tsv) cases"
out=/tmp/low_$(date +%s)
left=$(( ${LIMIT:-570} - $(el) ))
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/low.tsv --modes stock,fp64,auto --repeat 1 --rounds ${ROUNDS:-4} \
  --no-plots --no-stats --timeout 60 --out $out > $out.log 2>&1
echo "runs rc $? at $(el) s"
cp $out/runs.jsonl $OUT/low_runs.jsonl 2>/dev/null; cp $out/summary.txt $OUT/low_summary.txt 2>/dev/null
python3 bench/cold_pairs.py $out/runs.jsonl 2>&1 | tail -50
echo "end $(el) s"
