#!/usr/bin/env bash
# Builds everything and runs the main job: BoomerAMG on one problem, stock hypre next to the
# plugin's modes, in one run, with a side-by-side table.
#   ./scripts/run.sh                          default problem (GPU if present, CPU otherwise)
#   ./scripts/run.sh --problem laplace7 --n 64 --modes off,fp64,mixed --repeat 3 --np 2
#   ./scripts/run.sh --matrix ../shared/datasets/matrices/fv1.mtx.gz
# Other arguments go to bin/amgt-solve unchanged. Results: build/results/run-*.jsonl
set -eu -o pipefail
source "$(dirname "$0")/lib.sh"

modes="off,fp64,mixed"
np=1
repeat=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --modes) modes=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done

amgt_install_dependencies
amgt_build

gpu=0
amgt_want_gpu && gpu=1
if ! printf '%s\n' "${args[@]:-}" | grep -q -- '--problem\|--matrix'; then
  # default problem: sized so the whole run stays well under two minutes
  if [ $gpu = 1 ]; then args+=(--problem laplace27 --n 100); else args+=(--problem laplace27 --n 24); fi
fi
[ -z "$repeat" ] && { [ $gpu = 1 ] && repeat=3 || repeat=1; }

solve="$AMGT_BUILD_DIR/bin/amgt-solve"
out_dir="$AMGT_BUILD_DIR/results"
mkdir -p "$out_dir"
out="$out_dir/run-$(date +%Y%m%d-%H%M%S).jsonl"
amgt_log "problem: ${args[*]} | modes $modes | np $np | repeat $repeat | $([ $gpu = 1 ] && echo GPU || echo CPU)"

IFS=, read -r -a mode_list <<<"$modes"
for mode in "${mode_list[@]}"; do
  amgt_log "running mode $mode"
  cmd=("$solve" "${args[@]}" --repeat "$repeat" --json)
  if [ "$np" -gt 1 ]; then cmd=(amgt_mpirun -np "$np" "${cmd[@]}"); fi
  if ! AMGT=$mode "${cmd[@]}" >"$out_dir/last.log" 2>&1; then
    cat "$out_dir/last.log" >&2
    amgt_die "mode $mode failed"
  fi
  tail -n 1 "$out_dir/last.log" >>"$out"
done

python3 - "$out" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
base = next((r for r in rows if r["mode"] == "off"), None)
print()
print(f"{'mode':8} {'levels':>6} {'iters':>5} {'rel.res':>10} {'setup s':>9} {'solve s':>9} {'total s':>9} {'vs stock':>8}")
for r in rows:
    ratio = base["total_s"] / r["total_s"] if base and r["total_s"] > 0 else float("nan")
    print(f"{r['mode']:8} {r['levels']:>6} {r['iterations']:>5} {r['rel_residual']:>10.2e} "
          f"{r['setup_s']:>9.4f} {r['solve_s']:>9.4f} {r['total_s']:>9.4f} {ratio:>7.2f}x")
print(f"\nproblem: {rows[0].get('problem') or rows[0].get('matrix')}  rows {rows[0]['rows']}  nnz {rows[0]['nnz']}  "
      f"np {rows[0]['np']}  device {rows[0]['device']}")
print(f"results: {sys.argv[1]}")
PY
