#!/bin/bash
# call 2 (the preload's first-use list): build; the GPU tests of the kernel loading and the
# preload; AMGT_STATS of three small cases (what the preload loaded before the first setup);
# cold processes of eight small cases, the preload with the list (fp64, auto) against without it
# (fp64-img, auto-img, AMGT_PRELOAD=images) and stock, interleaved round by round
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 120 ctest -R "KernelImages|Selection.KernelsPreloaded|Environment.Preload" -j 8 --output-on-failure > $OUT/ctest.log 2>&1; echo "ctest rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|Value of" $OUT/ctest.log | head -30
cd ..
M=../shared/datasets/matrices; [ -d $M ] || M=.carry/matrices
for c in "memplus --matrix $M/memplus.mtx.gz" "ted_B --matrix $M/ted_B.mtx.gz" "laplace27-n22 --problem laplace27 --n 22"; do
  set -- $c; name=$1; shift
  for mode in fp64 auto; do
    AMGT=$mode AMGT_STATS=1 timeout 30 build-gpu/bin/amgt-solve "$@" --solver pcg --repeat 0 > $OUT/stats_${name}_$mode.log 2>&1
    echo "$name $mode: $(grep -o 'the library.s kernels were loaded.*' $OUT/stats_${name}_$mode.log | cut -c1-330)"
  done
done
export AMGT_BUILD_DIR=build-gpu
grep -E "^(memplus|jnlbrng1|Dubcova1|poisson10000|aft01|ted_B|laplace27-n22|aniso7-n22)	" bench/cases_small.tsv > /tmp/ab.tsv
left=$(( 575 - $(el) )); [ $left -gt 60 ] || exit 0
timeout -s INT $left ./scripts/run.sh --no-build --cases /tmp/ab.tsv --modes stock,fp64,fp64-img,auto,auto-img --repeat 1 --rounds 8 \
  --no-plots --no-stats --timeout 60 --out /tmp/ab > /tmp/ab.log 2>&1
echo "ab rc $? at $(el) s"
cp /tmp/ab/runs.jsonl $OUT/ab_runs.jsonl 2>/dev/null; cp /tmp/ab/summary.txt $OUT/ab_summary.txt 2>/dev/null
python3 - <<'PY'
import json, os, statistics as st
path = '/tmp/ab/runs.jsonl'
runs = [json.loads(l) for l in open(path)] if os.path.exists(path) else []
cold = {}
for r in runs:
    for p in r.get('processes') or []:
        if p.get('status') == 'ok' and p.get('cold_total_s'):
            cold.setdefault((r['case'], r['mode']), {})[p['round']] = p['cold_total_s'] * 1e3
modes = ['stock', 'fp64', 'fp64-img', 'auto', 'auto-img']
print('cold total ms, median (processes); then per round: the image-only preload / the list, median')
print('case', *modes, 'fp64-img/fp64', 'auto-img/auto', sep='\t')
for c in sorted({k[0] for k in cold}):
    row = [c]
    for m in modes:
        v = list(cold.get((c, m), {}).values())
        row.append(f"{st.median(v):.1f}({len(v)})" if v else '-')
    for a, b in (('fp64-img', 'fp64'), ('auto-img', 'auto')):
        x, y = cold.get((c, a), {}), cold.get((c, b), {})
        rs = [x[k] / y[k] for k in x if k in y]
        row.append(f"{st.median(rs):.3f}" if rs else '-')
    print(*row, sep='\t')
PY
echo "end $(el) s"
