#!/bin/bash
# The traces behind the preload's first-use list (bench/first_use_kernels.py): on a GPU machine,
# one cold process a case and mode (one setup and one solve, AMGT_PRELOAD=0 so that only the
# application's launches show) under kprof (../shared/tools/kprof), a TSV each in OUT.
#
#   bench/first_use_trace.sh BUILD_DIR OUT [KPROF_DIR]
#
# KPROF_DIR: where kprof.cpp is (default ../shared/tools/kprof, or .carry/kprof on the device).
set -o pipefail
build=${1:?usage: bench/first_use_trace.sh BUILD_DIR OUT [KPROF_DIR]}
out=${2:?usage: bench/first_use_trace.sh BUILD_DIR OUT [KPROF_DIR]}
kprof=${3:-../shared/tools/kprof}
[ -f "$kprof/kprof.cpp" ] || kprof=.carry/kprof
[ -f "$kprof/kprof.cpp" ] || { echo "first_use_trace: no kprof.cpp in $kprof" >&2; exit 2; }
solve=$build/bin/amgt-solve
[ -x "$solve" ] || { echo "first_use_trace: no $solve (a GPU build)" >&2; exit 2; }
m=../shared/datasets/matrices
[ -d $m ] || m=.carry/matrices
cu=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$out"
lib=$out/libkprof.so
g++ -O2 -shared -fPIC "$kprof/kprof.cpp" -I$cu/include -L$cu/lib64 -L$cu/extras/CUPTI/lib64 -lcupti -ldl -o "$lib" || exit 1
i=0
trace() { # name mode args...
  local name=$1 mode=$2; shift 2
  i=$((i + 1))
  local f=$out/$(printf %02d $i)_${name}_${mode}
  env AMGT=$mode AMGT_PRELOAD=0 LD_PRELOAD=$lib KPROF_OUT=$f.tsv timeout 60 "$solve" "$@" --repeat 0 > $f.log 2>&1
  echo "trace $i $name $mode: rc $?, $(grep -c '^K' $f.tsv 2>/dev/null) kernel records"
}
# small systems first (their setups begin a few ms after HYPRE_Initialize), then 1M rows
trace memplus fp64 --matrix $m/memplus.mtx.gz --solver pcg
trace memplus auto --matrix $m/memplus.mtx.gz --solver pcg
trace jnlbrng1 fp64 --matrix $m/jnlbrng1.mtx.gz --solver pcg
trace ted_B auto --matrix $m/ted_B.mtx.gz --solver pcg
trace laplace27-n22 fp64 --problem laplace27 --n 22 --solver pcg
trace systems3-n15 auto --problem systems3 --n 15 --solver pcg
trace laplace7-n100 fp64 --problem laplace7 --n 100 --solver pcg
trace laplace7-n100 auto --problem laplace7 --n 100 --solver pcg
trace laplace27-n100 auto --problem laplace27 --n 100 --solver pcg
rm -f "$lib"
