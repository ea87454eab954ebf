#!/usr/bin/env bash
# Is the CUDA build's device code unchanged? Compiles every plugin/**/*.cu to PTX (sm_90, the
# flags of the plugin target) at a git revision and in the working tree, and compares them
# after removing comments and the per-file hashes nvcc puts into internal-linkage names
# (_INTERNAL_<hash>_..., _GLOBAL__N__<hash>_..., which change with the source path and
# text). Identical PTX means identical kernels: ptxas turns the same PTX into the same SASS.
# For refactorings that must not touch the CUDA path (the device layer, the HIP backend).
#
#   scripts/ptx_diff.sh [REV]      # REV defaults to HEAD; needs nvcc, no GPU
# Prints one line per source (same / differs / only at REV / new) and exits 1 if any differs.
set -eu -o pipefail
cd "$(dirname "$0")/.."

rev=${1:-HEAD}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "ptx_diff: no nvcc" >&2; exit 2; }
jobs=${AMGT_JOBS:-$(nproc 2>/dev/null || echo 2)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/old" "$work/ptx_old" "$work/ptx_new"
git archive "$rev" plugin | tar -x -C "$work/old"

# Both macro spellings (before and after the device layer's renaming), so any two revisions
# compile with the same configuration.
defs="-DAMGT_HAVE_DEVICE_RUNTIME -DAMGT_WITH_DEVICE_KERNELS -DAMGT_HAVE_CUDA_RUNTIME -DAMGT_WITH_CUDA_KERNELS"
export nvcc defs
ptx_one() { # ptx_one ROOT SRC OUTDIR
  "$nvcc" -ccbin="${CXX:-c++}" $defs -I"$1/plugin" -O3 -DNDEBUG -arch=compute_90 \
    --expt-relaxed-constexpr -std=c++17 -x cu -ptx "$1/$2" -o "$3/$(echo "$2" | tr / _).ptx" \
    2>"$3/$(echo "$2" | tr / _).log" || echo "ptx_diff: $2 did not compile under $1" >&2
}
export -f ptx_one

{
  (cd "$work/old" && find plugin -name '*.cu') | sed "s|^|$work/old |; s|\$| $work/ptx_old|"
  find plugin -name '*.cu' | sed "s|^|$PWD |; s|\$| $work/ptx_new|"
} | xargs -P "$jobs" -L 1 bash -c 'ptx_one "$0" "$1" "$2"'

norm() {
  grep -v '^[[:space:]]*//' "$1" |
    sed -E 's/[0-9]*_INTERNAL_[0-9a-f]{8}_[0-9]+_[A-Za-z0-9_]+_cu_[0-9a-f]{8}(_[0-9]+)?/_INTERNAL_/g;
            s/[0-9]*_GLOBAL__N__[0-9a-f]{8}_[0-9]+_[A-Za-z0-9_]+_cu_[0-9a-f]{8}(_[0-9]+)?/_GLOBALN_/g'
}

status=0
for f in $( (ls "$work/ptx_old"; ls "$work/ptx_new") | grep '\.ptx$' | sort -u); do
  name=${f%.ptx}
  if [ ! -f "$work/ptx_new/$f" ]; then echo "only at $rev  $name"; continue; fi
  if [ ! -f "$work/ptx_old/$f" ]; then echo "new           $name"; continue; fi
  if diff -q <(norm "$work/ptx_old/$f") <(norm "$work/ptx_new/$f") >/dev/null; then
    echo "same          $name"
  else
    echo "differs       $name ($(diff <(norm "$work/ptx_old/$f") <(norm "$work/ptx_new/$f") | grep -c '^[<>]') lines)"
    status=1
  fi
done
exit $status
