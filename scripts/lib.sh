# Shared by scripts/run.sh and scripts/test.sh: dependencies, GPU detection, the build.
# Source it; it defines functions and variables only.

AMGT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AMGT_BUILD_DIR=${AMGT_BUILD_DIR:-$AMGT_ROOT/build}
AMGT_JOBS=${AMGT_JOBS:-$(nproc 2>/dev/null || echo 2)}

amgt_log() { echo "[amgt] $*" >&2; }
amgt_die() { echo "[amgt] error: $*" >&2; exit 1; }

# Debian packages the build needs, each with a file that proves it is installed.
amgt_missing_packages() {
  local missing=()
  command -v cmake >/dev/null || missing+=(cmake)
  command -v ninja >/dev/null || missing+=(ninja-build)
  command -v g++ >/dev/null || missing+=(g++)
  command -v patch >/dev/null || missing+=(patch)
  command -v mpicc >/dev/null || missing+=(libopenmpi-dev)
  command -v mpirun >/dev/null || missing+=(openmpi-bin)
  [ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
  [ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
  if [ "${AMGT_NEED_PLOTS:-0}" = 1 ]; then
    /usr/bin/python3 -c 'import numpy, matplotlib' 2>/dev/null || missing+=(python3-numpy python3-matplotlib)
  fi
  echo "${missing[@]}"
}

# apt-get install of the given packages, as root or through sudo. Returns non-zero, with a
# message, when it cannot (not root and no sudo, no apt-get, no reachable package source).
amgt_apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { amgt_log "missing packages ($*) and not root: install them with apt-get"; return 1; }
    sudo="sudo"
  fi
  command -v apt-get >/dev/null || { amgt_log "missing packages ($*) and no apt-get"; return 1; }
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null || { amgt_log "apt-get update failed"; return 1; }
  $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null ||
    { amgt_log "apt-get install $* failed"; return 1; }
}

amgt_install_dependencies() {
  local missing
  missing=$(amgt_missing_packages)
  [ -z "$missing" ] && return 0
  amgt_log "installing missing packages: $missing"
  # shellcheck disable=SC2086
  amgt_apt_install $missing || amgt_die "cannot install what the build needs: $missing"
}

# numpy and matplotlib for scripts/plot.py (Debian's python3-numpy python3-matplotlib, for
# /usr/bin/python3). AMGT_NEED_PLOTS=1 makes amgt_install_dependencies require them; this one
# is for optional figures: it tries (unless AMGT_NEED_PLOTS=0) and returns non-zero when they
# cannot be had (e.g. a GPU node without a package source), without stopping the caller.
# The python3 that draws the figures: Debian's, or the first python3 on PATH that already
# has numpy and matplotlib (a GPU node's own Python, say); prints its path.
amgt_plot_python() {
  local cand
  for cand in /usr/bin/python3 "$(command -v python3 2>/dev/null)"; do
    [ -n "$cand" ] && [ -x "$cand" ] && "$cand" -c 'import numpy, matplotlib' 2>/dev/null &&
      { echo "$cand"; return 0; }
  done
  return 1
}

amgt_install_plot_packages() {
  [ "${AMGT_NEED_PLOTS:-1}" = 0 ] && return 1
  amgt_plot_python >/dev/null && return 0
  amgt_log "installing python3-numpy python3-matplotlib for the figures (AMGT_NEED_PLOTS=0: skip)"
  amgt_apt_install python3-numpy python3-matplotlib && /usr/bin/python3 -c 'import numpy, matplotlib' 2>/dev/null
}

# GPU build when an NVIDIA GPU answers and nvcc exists; AMGT_GPU=0/1 overrides.
amgt_want_gpu() {
  case "${AMGT_GPU:-auto}" in
    0|off|no) return 1 ;;
    1|on|yes) return 0 ;;
  esac
  command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep '^GPU' >/dev/null &&
    { command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; }
}

# Configures (when needed) and builds build/. A CPU tree is reconfigured for the GPU and
# back when the machine changes. A tree already configured with the same options is not
# configured again: `cmake --build` re-runs CMake by itself whenever a CMakeLists, a patch or
# anything else the configuration read has changed, so an explicit one would only cost time.
amgt_build() {
  local cuda=OFF extra=()
  if amgt_want_gpu; then
    cuda=ON
    [ -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null && export PATH=/usr/local/cuda/bin:$PATH
    extra+=(-DCMAKE_CUDA_COMPILER="$(command -v nvcc)")
  fi
  local cache="$AMGT_BUILD_DIR/CMakeCache.txt"
  if [ -f "$cache" ] && ! grep -q "^AMGT_WITH_CUDA:BOOL=$cuda$" "$cache"; then
    amgt_log "build/ was configured with another CUDA setting: reconfiguring from scratch"
    rm -rf "$AMGT_BUILD_DIR"
  fi
  local gen=()
  if [ ! -f "$cache" ] && command -v ninja >/dev/null; then gen=(-G Ninja); fi
  # shellcheck disable=SC2206
  local args=(-DCMAKE_BUILD_TYPE=Release -DAMGT_WITH_CUDA=$cuda
    -DAMGT_CUDA_ARCHITECTURES="${AMGT_CUDA_ARCH:-90}"
    ${AMGT_HYPRE_TARBALL:+-DAMGT_HYPRE_TARBALL="$AMGT_HYPRE_TARBALL"} "${extra[@]}"
    ${AMGT_CMAKE_ARGS:-})
  # the options of the last successful configure (written after it, removed before one)
  local stamp="$AMGT_BUILD_DIR/amgt-configure-options.txt"
  local options
  options=$(printf '%s\n' "${args[@]}")
  mkdir -p "$AMGT_BUILD_DIR"
  if [ -f "$cache" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$options" ] &&
     { [ -f "$AMGT_BUILD_DIR/build.ninja" ] || [ -f "$AMGT_BUILD_DIR/Makefile" ]; }; then
    amgt_log "already configured with these options ($(basename "$AMGT_BUILD_DIR")/$(basename "$stamp"))"
  else
    rm -f "$stamp"
    amgt_log "configuring ($( [ $cuda = ON ] && echo "GPU build, sm_${AMGT_CUDA_ARCH:-90}" || echo "CPU build"))"
    cmake -S "$AMGT_ROOT" -B "$AMGT_BUILD_DIR" "${gen[@]}" "${args[@]}" \
      >"$AMGT_BUILD_DIR/configure.log" 2>&1 ||
      { tail -40 "$AMGT_BUILD_DIR/configure.log" >&2; amgt_die "configure failed (full log: $AMGT_BUILD_DIR/configure.log)"; }
    printf '%s\n' "$options" >"$stamp"
  fi
  amgt_log "building with $AMGT_JOBS jobs (log: $AMGT_BUILD_DIR/build.log)"
  cmake --build "$AMGT_BUILD_DIR" -j "$AMGT_JOBS" >"$AMGT_BUILD_DIR/build.log" 2>&1 ||
    { grep -E "error|Error" "$AMGT_BUILD_DIR/build.log" | head -30 >&2; amgt_die "build failed (full log: $AMGT_BUILD_DIR/build.log)"; }
}

# mpirun that works as root and with more ranks than cores (containers, CI).
amgt_mpirun() {
  local args=()
  [ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
  mpirun "${args[@]}" --oversubscribe "$@"
}
