#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang, AddressSanitizer + UndefinedBehaviorSanitizer)
# into build-fuzz/ and runs each for a set time. Not part of CI.
#
#   ./scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#       SECONDS_PER_TARGET  default 120
#       TARGET              fuzz_mtx_reader fuzz_mtx_file fuzz_mbsr (default: all three)
#   AMGT_FUZZ_DIR=...       build folder (default build-fuzz)
#
# Installs what is missing from Debian's packages (clang, the libFuzzer runtime in
# libclang-rt-dev, cmake, ninja, zlib), as scripts/lib.sh does for the main build. The corpus
# grows in build-fuzz/corpus/TARGET from run to run; seeds are generated into
# build-fuzz/seeds/. A crash, a sanitizer report, a leak or a violated invariant leaves the
# input in build-fuzz/artifacts/TARGET/ and makes the script exit 1; replay one with
#   build-fuzz/TARGET build-fuzz/artifacts/TARGET/crash-...
set -eu -o pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

seconds=${1:-120}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_mtx_reader fuzz_mtx_file fuzz_mbsr)
case "$seconds" in '' | *[!0-9]*) amgt_die "seconds per target must be a number, got '$seconds'" ;; esac
fuzz_dir=${AMGT_FUZZ_DIR:-$AMGT_ROOT/build-fuzz}

# ---- dependencies --------------------------------------------------------------------------
clangxx=$(command -v clang++ || true)

# clang compiles, and links a fuzzer (the runtime, libclang_rt.fuzzer, is a separate package).
fuzz_toolchain_works() {
  [ -n "$clangxx" ] || return 1
  local probe
  probe=$(mktemp -d)
  printf '#include <cstdint>\n#include <cstddef>\nextern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }\n' \
    >"$probe/p.cpp"
  "$clangxx" -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1
  local ok=$?
  rm -rf "$probe"
  return $ok
}

fuzz_missing_packages() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v ninja >/dev/null || missing+=(ninja-build)
  [ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
  [ -n "$clangxx" ] || missing+=(clang)
  if ! fuzz_toolchain_works; then missing+=(libclang-rt-dev); fi
  echo "${missing[@]}"
}

need=$(fuzz_missing_packages)
if [ -n "$need" ]; then
  amgt_log "installing missing packages: $need"
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || amgt_die "missing packages ($need) and not root: install them with apt-get"
    sudo="sudo"
  fi
  command -v apt-get >/dev/null || amgt_die "missing packages ($need) and no apt-get"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null || amgt_die "apt-get update failed"
  # shellcheck disable=SC2086
  $sudo apt-get install -y -qq --no-install-recommends $need >/dev/null ||
    amgt_die "apt-get install $need failed"
  clangxx=$(command -v clang++ || true)
  fuzz_toolchain_works || amgt_die "clang++ still cannot link a libFuzzer target (-fsanitize=fuzzer)"
fi

# ---- build -----------------------------------------------------------------------------------
mkdir -p "$fuzz_dir"
amgt_log "configuring the fuzz targets with $clangxx ($fuzz_dir)"
gen=()
[ -f "$fuzz_dir/CMakeCache.txt" ] || gen=(-G Ninja)
cmake -S "$AMGT_ROOT/fuzz" -B "$fuzz_dir" "${gen[@]}" -DCMAKE_CXX_COMPILER="$clangxx" \
  -DAMGT_BUILD_FUZZERS=ON >"$fuzz_dir/configure.log" 2>&1 ||
  { tail -20 "$fuzz_dir/configure.log" >&2; amgt_die "configure failed"; }
cmake --build "$fuzz_dir" -j "$AMGT_JOBS" >"$fuzz_dir/build.log" 2>&1 ||
  { grep -E "error" "$fuzz_dir/build.log" | head -20 >&2; amgt_die "build failed (log: $fuzz_dir/build.log)"; }

# ---- seeds (generated, never committed) --------------------------------------------------------
seeds="$fuzz_dir/seeds"
rm -rf "$seeds"
mkdir -p "$seeds/text" "$seeds/file"
B='%%MatrixMarket matrix coordinate'
printf '%s real general\n%% a comment\n3 3 7\n1 1 2\n2 2 2\n3 3 2\n2 1 -1\n1 2 -1\n3 2 -1\n2 3 -1\n' "$B" >"$seeds/text/general.mtx"
printf '%s real symmetric\n4 4 6\n1 1 4\n2 2 4\n3 3 4\n4 4 4\n2 1 -1\n4 3 -1e-3\n' "$B" >"$seeds/text/symmetric.mtx"
printf '%s pattern general\n3 3 4\n1 1\n2 2\n3 3\n1 3\n' "$B" >"$seeds/text/pattern.mtx"
printf '%s integer skew-symmetric\n3 3 2\n2 1 5\n3 2 -7\n' "$B" >"$seeds/text/skew.mtx"
printf '%s real general\r\n\r\n2 2 3\r\n1 1 1e308\r\n1 1 -1.5e-300\r\n2 2 +4.0E0\r\n' "$B" >"$seeds/text/crlf_dups.mtx"
printf '%s real general\n4 4 3\n1 1 1\n3 3 1\n4 4 1\n' "$B" >"$seeds/text/empty_row.mtx"
for f in "$seeds"/text/*.mtx; do
  cp "$f" "$seeds/file/"
  gzip -c "$f" >"$seeds/file/$(basename "$f").gz"
done

# ---- run -------------------------------------------------------------------------------------
status=0
summary=()
for t in "${targets[@]}"; do
  bin="$fuzz_dir/$t"
  [ -x "$bin" ] || amgt_die "no fuzz target $t (known: fuzz_mtx_reader fuzz_mtx_file fuzz_mbsr)"
  corpus="$fuzz_dir/corpus/$t"
  artifacts="$fuzz_dir/artifacts/$t"
  log="$fuzz_dir/logs/$t.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$log")"
  args=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1
        -artifact_prefix="$artifacts/")
  seed_dirs=()
  case "$t" in
    fuzz_mtx_reader) args+=(-dict="$AMGT_ROOT/fuzz/mtx.dict" -max_len=4096); seed_dirs=("$seeds/text") ;;
    fuzz_mtx_file) args+=(-dict="$AMGT_ROOT/fuzz/mtx.dict" -max_len=8192); seed_dirs=("$seeds/file") ;;
    fuzz_mbsr) args+=(-max_len=4096) ;;
  esac
  before=$(find "$artifacts" -type f | wc -l)
  amgt_log "fuzzing $t for ${seconds}s (log: $log)"
  set +e
  "$bin" "${args[@]}" "$corpus" "${seed_dirs[@]}" >"$log" 2>&1
  rc=$?
  set -e
  after=$(find "$artifacts" -type f | wc -l)
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
  units=$(find "$corpus" -type f | wc -l)
  line="$t: ${seconds}s budget, $runs runs, ${cov:-no coverage line}, corpus $units inputs, exit $rc"
  if [ "$rc" -ne 0 ] || [ "$after" -gt "$before" ]; then
    status=1
    line="$line, FINDING: $(grep -m1 -E 'ERROR: |fuzz invariant violated|runtime error' "$log" || echo 'see log')"
    line="$line; input(s) in $artifacts"
  fi
  summary+=("$line")
done
for s in "${summary[@]}"; do amgt_log "$s"; done
exit $status
