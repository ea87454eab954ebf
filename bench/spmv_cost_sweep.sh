#!/usr/bin/env bash
# The SpMV cost table behind the planner's decision whether a matrix is worth the plugin's
# one-time work: the plugin's SpMV (in the layout the planner picks) against hypre's own kernel,
# and the plugin's one-time cost (the row-wise build or the entry-order conversion and plan), on
# stencil-like operators of 2^14-2^24 entries and 4-100 entries a row (amgt-kernel-bench
# --problem band:ROWS:LEN), in fp64, fp32 and fp16. GPU builds only.
#
#   bench/spmv_cost_sweep.sh [BUILD_DIR] [OUT_DIR]      (defaults: $AMGT_BUILD_DIR or build, spmv-cost)
#
# Writes OUT_DIR/<precision>.jsonl (the bench's records) and .txt (its output), then prints the
# table (bench/spmv_cost_table.py).
set -eu -o pipefail
build=${1:-${AMGT_BUILD_DIR:-build}}
out=${2:-spmv-cost}
bench="$build/bin/amgt-kernel-bench"
[ -x "$bench" ] || { echo "spmv_cost_sweep: $bench not found (a GPU build makes it)" >&2; exit 2; }
mkdir -p "$out"
sizes=${AMGT_SWEEP_SIZES:-"16384 65536 262144 1048576 4194304 16777216"}
lens=${AMGT_SWEEP_LENGTHS:-"4 7 16 27 64 100"}
problems=()
for e in $sizes; do
  for l in $lens; do
    r=$(( e / l ))
    [ "$r" -ge 16 ] && problems+=(--problem "band:$r:$l")
  done
done
for prec in fp64 fp32 fp16; do
  "$bench" --only spmv --device-only --setup-products 0 --precision "$prec" --json "$out/$prec.jsonl" \
    "${problems[@]}" > "$out/$prec.txt" 2>&1 || echo "spmv_cost_sweep: $prec exited with $? (see $out/$prec.txt)" >&2
done
python3 "$(dirname "$0")/spmv_cost_table.py" "$out"/fp64.jsonl "$out"/fp32.jsonl "$out"/fp16.jsonl
