#!/usr/bin/env bash
# Builds everything and runs BoomerAMG benchmarks: stock hypre with its own kernels, with
# vendor kernels, and in hypre's default configuration (GPU builds: no device pool, cuSPARSE)
# next to the plugin's modes AMGT=fp64, mixed and auto, a table side by side with speedups
# against the fastest stock configuration and against hypre's default configuration, warm
# medians and the cold first run, results in build/results/<timestamp>/ (runs.jsonl,
# runs.csv, stats.jsonl, summary.txt, figures/).
#
#   ./scripts/run.sh                      quick run (< 2 min): the default problem, every mode
#   ./scripts/run.sh --problem laplace7 --n 64 --modes stock,fp64,mixed --repeat 5 --np 2
#   ./scripts/run.sh --matrix ../shared/datasets/matrices/fv1.mtx.gz --solver pcg
#   ./scripts/run.sh --suite [--set paper,shared,generated] [--rows 1e5,1e6] [--only REGEX]
#   ./scripts/run.sh --cases FILE         one case per line: label<TAB>amgt-solve arguments
#   ./scripts/run.sh --cases bench/cases_1m.tsv --modes stock,stock-default,fp64,auto --solves 10
#
# Options of run.sh (everything else goes to bin/amgt-solve, for every run):
#   --modes LIST     stock,vendor,stock-default,fp64,mixed,auto (the default); also mixed-h,
#                    auto-h, auto-sh (AMGT_LEVELS=s,h), auto-hs (h,s,h), fp64-mbsr, auto-mbsr, fp64-rows, auto-rows (AMGT_SPGEMM=rows:
#                    the row-wise CSR SpGEMM for every device product), fp64-hspgemm,
#                    auto-hspgemm (AMGT_SPGEMM=stock: hypre's kernel for every device
#                    product), fp64-beside, auto-beside (AMGT_SETUP_OVERLAP=1: the plugin's
#                    setup work beside hypre's setup instead of at its end), fp64-each,
#                    auto-each (AMGT_SETUP_SURVEY=0: no end-of-setup survey), fp64-sk, auto-sk
#                    (AMGT_SETUP_KERNELS=1: hypre's setup kernels the plugin implements
#                    on its own at every size), fp64-hsk, auto-hsk (AMGT_SETUP_KERNELS=0:
#                    hypre's), fp64-skl, auto-skl (AMGT_SETUP_KERNELS=large, the default: the
#                    plugin's from 2^18 entries a block). stock: hypre's own kernels with its device pool (the headline's
#                    reference); vendor: cuSPARSE kernels; stock-default: hypre's default
#                    configuration, no pool and cuSPARSE (--pool 0 --vendor-spgemm 1
#                    --vendor-spmv 1); stock-binned: hypre's own SpGEMM in its binned mode
#                    for every product (--spgemm-binned 1). vendor, stock-default and
#                    stock-binned are dropped in CPU builds, where those switches do nothing
#   --repeat K       one warm-up (reported as the cold run), then K timed runs, medians
#                    (default 3; 0: one run, no warm-up, which is then the cold one)
#   --solves K       one setup then K solves of the same system per run (default 1): solve =
#                    median per solve, solves = their sum, total = setup + solves
#   --steps K        each run a sequence of K steps on one matrix and one solver, new values
#                    every step (amgt-solve --steps K; the driver options --drift dt|jump|none,
#                    --dt-shift, --jump-speed, --update pass through): setup = the sum of the K
#                    setups; the summary adds a per-step table and re-setup ratios, plot.py
#                    fig_steps_<case>.png. Modes for it: stock-frozen (the first hierarchy
#                    kept, --frozen 1), auto-resetup, auto-galerkin, fp64-resetup
#                    (AMGT_RESETUP=auto|galerkin|auto with AMGT=auto|auto|fp64)
#   --rounds R       R processes per case and mode (default 1), interleaved: round by round,
#                    every case and mode; the tables take the median of the processes'
#                    medians and print their spread (the 1M-row setups move by 8-20% from one
#                    process to the next on an H100, stock's included); processes.jsonl
#                    keeps each process's record
#   --np N[,M...]    MPI ranks through mpirun (default 1); a list (1,2) runs every case at each
#                    count and adds a table of parallel efficiency against the smallest
#   --suite          every matrix scripts/matrix.py finds (the paper's 16 once fetched, the
#                    offline datasets) plus the generated problems at --rows (default 1e6 in
#                    GPU builds, 3e4 in CPU builds); --set, --kinds, --only select
#   --cases FILE     the cases of a file instead
#   --no-stats       no extra AMGT_STATS=1 run per case and plugin mode (the SpGEMM/SpMV shares)
#   --no-plots       no figures (scripts/plot.py; needs python3-matplotlib, installed when
#                    possible unless AMGT_NEED_PLOTS=0)
#   --timeout S      seconds before a run is killed and recorded as 'timeout' (default 3600)
#   --out DIR        results folder instead of build/results/<timestamp>
#   --data-dir DIR   scripts/matrix.py's data folder (default data/)
#   --matrix-dir DIR a case file's --matrix files that are not where it says are taken from
#                    DIR by their file name (a machine with the matrices elsewhere)
#   --no-build       use the existing build (AMGT_BUILD_DIR, default build/) as it is
# A failing run (non-convergence, hypre error, crash, timeout) is recorded as such; the rest go on.
set -eu -o pipefail
source "$(dirname "$0")/lib.sh"

usage() { sed -n '2,/^set -eu/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

runner=()
driver=()
build=1
plots=1
case_given=0
while [ $# -gt 0 ]; do
  case "$1" in
    --modes|--repeat|--solves|--steps|--rounds|--np|--timeout|--out|--set|--rows|--kinds|--only|--cases|--data-dir|--matrix-dir)
      [ $# -ge 2 ] || amgt_die "$1 needs a value"
      runner+=("$1" "$2")
      case "$1" in --cases) case_given=1 ;; esac
      shift 2 ;;
    --modes=*|--repeat=*|--solves=*|--steps=*|--rounds=*|--np=*|--timeout=*|--out=*|--set=*|--rows=*|--kinds=*|--only=*|--cases=*|--data-dir=*|--matrix-dir=*)
      runner+=("$1")
      case "$1" in --cases=*) case_given=1 ;; esac
      shift ;;
    --suite) runner+=(--suite); case_given=1; shift ;;
    --no-stats|--stats) runner+=("$1"); shift ;;
    --no-plots) runner+=(--no-plots); plots=0; shift ;;
    --no-build) build=0; shift ;;
    -h|--help) usage; exit 0 ;;
    --problem|--problem=*|--matrix|--matrix=*) case_given=1; driver+=("$1"); shift ;;
    *) driver+=("$1"); shift ;;
  esac
done

if [ $build = 1 ]; then
  amgt_install_dependencies
  amgt_build
fi
solve="$AMGT_BUILD_DIR/bin/amgt-solve"
[ -x "$solve" ] || amgt_die "$solve not found (run without --no-build, or set AMGT_BUILD_DIR)"

gpu=0
grep -q '^AMGT_WITH_CUDA:BOOL=ON$' "$AMGT_BUILD_DIR/CMakeCache.txt" 2>/dev/null && gpu=1
if [ $case_given = 0 ]; then
  # The default problem, sized so that the whole quick run stays well under two minutes.
  if [ $gpu = 1 ]; then driver+=(--problem laplace27 --n 100); else driver+=(--problem laplace27 --n 24); fi
fi

py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3  # Debian's python3-matplotlib is installed for it
if [ $plots = 1 ] && ! amgt_install_plot_packages; then
  amgt_log "figures will be skipped: python3-numpy/python3-matplotlib are not available"
fi
py=$(amgt_plot_python || echo "$py")
launcher="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && launcher="$launcher --allow-run-as-root"

amgt_log "$([ $gpu = 1 ] && echo GPU || echo CPU) build: $solve"
exec "$py" "$AMGT_ROOT/scripts/bench_runner.py" --solve "$solve" --gpu-build "$gpu" \
  --mpirun "$launcher" --results-root "$AMGT_BUILD_DIR/results" --plot-python "$py" \
  "${runner[@]}" -- "${driver[@]}"
