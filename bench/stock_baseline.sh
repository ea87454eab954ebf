#!/usr/bin/env bash
# Stock hypre on the GPU with its own and with vendor (cuSPARSE) kernels, on the three
# reference problems of the benchmark protocol; one JSON line per run.
#   bench/stock_baseline.sh BUILD_DIR OUT_FILE [repeat]
set -u -o pipefail
build=$1 out=$2 repeat=${3:-5}
: >"$out"
for prob in "laplace27 --n 100" "laplace7 --n 160" "systems3 --n 64"; do
  for v in 0 1; do
    # shellcheck disable=SC2086
    AMGT=off "$build/bin/amgt-solve" --problem $prob --repeat "$repeat" --vendor-spgemm $v \
      --vendor-spmv $v --json 2>&1 | tail -1 >>"$out"
  done
done
python3 - "$out" <<'PY'
import json, sys
print(f"{'problem':10} {'n':>4} {'kernels':8} {'levels':>6} {'iters':>5} {'setup s':>9} {'solve s':>9} {'total s':>9}")
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except Exception: print("bad line:", l.strip()[:200]); continue
    k = "vendor" if r["vendor_spgemm"] else "own"
    print(f"{r['problem']:10} {r['n']:>4} {k:8} {r['levels']:>6} {r['iterations']:>5} {r['setup_s']:>9.4f} {r['solve_s']:>9.4f} {r['total_s']:>9.4f}")
PY
