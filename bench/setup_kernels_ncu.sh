#!/usr/bin/env bash
# What each kernel of a BoomerAMG setup moves and what bounds it (Nsight Compute), for stock
# hypre (AMGT unset) or a plugin mode: one process a problem, `amgt-solve ... --solver amg
# --max-iter 1 --repeat 0` (the matrix's assembly, one setup and one V-cycle), every kernel
# launch profiled for its time, DRAM bytes and SM / DRAM throughput, then the per-kernel table
# (bench/ncu_kernel_table.py: calls, ms, share, MB, GB/s, fraction of the peak, bound). GPU
# machine with ncu; the GPU build.
#
#   bench/setup_kernels_ncu.sh [BUILD_DIR] [OUT_DIR] [LABEL:ARGS ...]
#
# Defaults: $AMGT_BUILD_DIR or build, ncu-setup, and the three problems of the setup-kernel
# survey (laplace7 n=250, laplace27 n=200, systems3 n=126). AMGT in the environment is passed
# on (unset: stock hypre). Writes OUT_DIR/LABEL.csv (ncu's raw page), OUT_DIR/LABEL.log (the
# run) and OUT_DIR/LABEL.txt (the table, against 3.0 TB/s; bench/ncu_kernel_table.py --peak-tbs
# on the .csv for another GPU).
# ncu replays each launch for its metrics: about 1,100 launches a setup at these sizes, more
# than five minutes a problem. NCU_KERNELS=REGEX profiles only the kernels whose function names
# match (ncu --kernel-name regex:REGEX; the others run unprofiled), e.g.
#   NCU_KERNELS='twiaff|CreateS|PMIS|IndepSet|RowSum|Trunc|weak_rowsums|ExtractDiag' bench/setup_kernels_ncu.sh
set -eu -o pipefail
build=${1:-${AMGT_BUILD_DIR:-build}}
out=${2:-ncu-setup}
shift $(( $# < 2 ? $# : 2 ))
solve="$build/bin/amgt-solve"
[ -x "$solve" ] || { echo "setup_kernels_ncu: $solve not found" >&2; exit 2; }
command -v ncu >/dev/null || { echo "setup_kernels_ncu: ncu not found (Nsight Compute)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
problems=("$@")
if [ ${#problems[@]} -eq 0 ]; then
  problems=("laplace7-n250:--problem laplace7 --n 250"
            "laplace27-n200:--problem laplace27 --n 200"
            "systems3-n126:--problem systems3 --n 126")
fi
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed
mkdir -p "$out"
status=0
for p in "${problems[@]}"; do
  label=${p%%:*}
  args=${p#*:}
  # --clock-control none: the GPU's own clocks, as in the timed runs (ncu locks base clocks by default)
  # shellcheck disable=SC2086
  filter=()
  [ -n "${NCU_KERNELS:-}" ] && filter=(--kernel-name "regex:$NCU_KERNELS")
  if ncu --clock-control none --kernel-name-base function "${filter[@]}" --metrics "$metrics" -f -o "$out/$label" \
       "$solve" $args --solver amg --max-iter 1 --repeat 0 > "$out/$label.log" 2>&1 &&
     ncu -i "$out/$label.ncu-rep" --csv --page raw --print-units base > "$out/$label.csv"; then
    python3 "$here/ncu_kernel_table.py" "$out/$label.csv" | tee "$out/$label.txt"
  else
    echo "setup_kernels_ncu: $label failed (see $out/$label.log)" >&2
    status=1
  fi
done
exit $status
