#!/usr/bin/env bash
# On a GPU machine, after a build: the GPU kernel tests, the integration tests (driver and
# datasets through libHYPRE on the GPU), and the solver in every mode on the three reference
# problems of the benchmark protocol, side by side. Logs and JSON lines go to OUT_DIR.
#   scripts/gpu_validate.sh BUILD_DIR OUT_DIR [DATASETS_DIR] [repeat]
# AMGT_SANITIZE=1 also runs compute-sanitizer (memcheck, racecheck, initcheck, synccheck) on
# the GPU kernel tests and memcheck/initcheck on one driver run per mode (sanitizer.log).
set -u -o pipefail
build=$(cd "$1" && pwd) out=$2 data=${3:-} repeat=${4:-5}
mkdir -p "$out"
# DATASETS_DIR: the folder of *.mtx.gz, or one holding it as matrices/ (a copy of shared/datasets)
[ -n "$data" ] && [ -d "$data/matrices" ] && data=$data/matrices
[ -n "$data" ] && { AMGT_DATASETS=$(cd "$data" && pwd); export AMGT_DATASETS; }
cd "$build" || exit 1
ctest -L gpu --output-on-failure >"$out/gpu_tests.log" 2>&1
echo "gpu tests: $(grep -E 'tests passed|tests failed' "$out/gpu_tests.log")"
if [ "${AMGT_SANITIZE:-0}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  san() { # tool, timeout, command...: one line per run, the full report in sanitizer.log
    local tool=$1 limit=$2; shift 2
    echo "=== $tool: $*" >>"$out/sanitizer.log"
    timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 99 "$@" >>"$out/sanitizer.log" 2>&1
    local rc=$? summary
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|LEAK SUMMARY" "$out/sanitizer.log" | tail -1)
    echo "sanitizer $tool rc=$rc ${summary:-no summary} :: $*"
  }
  # racecheck is slow: a subset of the test binaries that covers every kernel (a binary
  # without an entry gets no racecheck run; its kernels are raced through the others)
  declare -A race_filter=([test_mbsr_device]='*' [test_precision_device]='*'
    [test_spmv_device]='*ExactOnSmallIntegerInputs*:*Balanced*'
    [test_spmv_unscale_device]='*Unscale*Exact*:*TinyX*'
    [test_spgemm_device]='*AllSymbolicAndNumericBins*:*EdgeMatricesExact*:*DenseTiles*'
    [test_csr_spgemm_device]='*RowsInEveryBin*:*EmptyOperands*'
    [test_warp_device]='*')
  for t in test_mbsr_device test_spmv_device test_spmv_unscale_device test_spgemm_device \
    test_spgemm_forced_device test_precision_device test_csr_spgemm_device test_warp_device; do
    [ -x "bin/$t" ] || continue
    for tool in memcheck initcheck synccheck; do san $tool 150 "bin/$t"; done
    [ -n "${race_filter[$t]:-}" ] || continue
    san racecheck 150 "bin/$t" "--gtest_filter=${race_filter[$t]}"
  done
  for mode in off fp64 mixed auto; do
    AMGT=$mode AMGT_SPGEMM=plugin AMGT_SPMV=plugin san memcheck 120 --leak-check full \
      bin/amgt-solve --problem laplace7 --n 16 --solver pcg --repeat 1
    # initcheck: every report kept, then counted by kernel (hypre's own or the plugin's)
    AMGT=$mode AMGT_SPGEMM=plugin AMGT_SPMV=plugin timeout 120 compute-sanitizer --tool initcheck \
      --print-limit 100000 bin/amgt-solve --problem laplace7 --n 16 --solver pcg --repeat 1 \
      >/tmp/initcheck.log 2>&1
    echo "sanitizer initcheck rc=$? AMGT=$mode $(grep -c 'Uninitialized __global__' /tmp/initcheck.log) reports" |
      tee -a "$out/sanitizer.log"
    grep -A1 'Uninitialized __global__' /tmp/initcheck.log | grep -E '^ *=+ +at ' |
      sed -E 's/^ *=+ +at //; s/[(<].*//' | sort | uniq -c | sort -rn | head -8 | tee -a "$out/sanitizer.log"
  done
fi
ctest -L integration --output-on-failure -j 4 >"$out/integration.log" 2>&1
echo "integration: $(grep -E 'tests passed|tests failed' "$out/integration.log")"
grep -h "^\[ result \]" "$out/integration.log" | sort | head -20
: >"$out/modes.jsonl"
for prob in "laplace27 --n 100" "laplace7 --n 160" "systems3 --n 64"; do
  for cfg in "off 0" "off 1" "fp64 0" "mixed 0"; do
    set -- $cfg
    # shellcheck disable=SC2086
    AMGT=$1 timeout 120 bin/amgt-solve --problem $prob --repeat "$repeat" --vendor-spgemm $2 \
      --vendor-spmv $2 --json 2>>"$out/modes.err" | tail -1 >>"$out/modes.jsonl"
  done
  # shellcheck disable=SC2086
  AMGT=fp64 AMGT_STATS=1 timeout 120 bin/amgt-solve --problem $prob >>"$out/stats.log" 2>&1
done
python3 - "$out/modes.jsonl" <<'PY'
import json, sys
rows = []
for l in open(sys.argv[1]):
    try: rows.append(json.loads(l))
    except Exception: print("bad line:", l.strip()[:160])
print(f"{'problem':10} {'mode':6} {'kern':6} {'lev':>3} {'it':>3} {'rel.res':>9} {'setup s':>8} {'solve s':>8} {'total s':>8} {'vs best stock':>13}")
for p in dict.fromkeys(r["problem"] for r in rows):
    rs = [r for r in rows if r["problem"] == p]
    best = min((r for r in rs if r["mode"] == "off"), key=lambda r: r["total_s"], default=None)
    for r in rs:
        k = "vendor" if r["vendor_spgemm"] else "own"
        ratio = best["total_s"] / r["total_s"] if best else float("nan")
        print(f"{p:10} {r['mode']:6} {k:6} {r['levels']:>3} {r['iterations']:>3} {r['rel_residual']:>9.2e} "
              f"{r['setup_s']:>8.4f} {r['solve_s']:>8.4f} {r['total_s']:>8.4f} {ratio:>12.2f}x")
PY
