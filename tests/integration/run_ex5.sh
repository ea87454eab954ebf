#!/usr/bin/env bash
# Builds hypre's unmodified example ex5.c against the installed drop-in and runs it with the
# plugin on; asserts that the AMGT statistics show the plugin's SpMV calls.
#   run_ex5.sh BUILD_DIR HYPRE_EXAMPLES_DIR WORK_DIR
set -eu -o pipefail
build=$1 examples=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/dropin" >"$work/install.log"
cmake -S "$(dirname "$0")/ex5_consumer" -B "$work/ex5" -DCMAKE_PREFIX_PATH="$work/dropin" \
  -DHYPRE_EXAMPLES_DIR="$examples" >"$work/configure.log"
cmake --build "$work/ex5" >"$work/build.log"
mpi=(mpirun --oversubscribe -np 2)
[ "$(id -u)" = 0 ] && mpi=(mpirun --allow-run-as-root --oversubscribe -np 2)
cd "$work"
# the statistics come on stderr (the application's stdout stays its own)
AMGT=fp64 AMGT_STATS=1 "${mpi[@]}" "$work/ex5/ex5" -n 33 -solver 0 2>&1 | tee out.txt
grep -q "Iterations" out.txt || { echo "FAIL: ex5 printed no iteration count"; exit 1; }
grep -q "AMGT statistics (rank 0 of 2): mode fp64" out.txt || { echo "FAIL: no AMGT statistics table"; exit 1; }
# SpMV calls column (10th field) must be positive on level 0
spmv=$(awk '$1 == "0" && NF >= 12 { print $10 }' out.txt | head -1)
[ -n "$spmv" ] && [ "$spmv" -gt 0 ] || { echo "FAIL: no plugin SpMV calls on level 0 (got '$spmv')"; exit 1; }
# the library is the installed drop-in, not some other libHYPRE
# (captured first: with pipefail, `ldd | grep -q` fails whenever grep exits before ldd has
# written everything and ldd dies of SIGPIPE)
libs=$(ldd "$work/ex5/ex5")
grep -q "$work/dropin/lib/libHYPRE" <<<"$libs" || { echo "FAIL: ex5 is not linked to the drop-in"; echo "$libs"; exit 1; }
echo "PASS: unmodified ex5 ran $spmv SpMV calls on level 0 through the plugin"
