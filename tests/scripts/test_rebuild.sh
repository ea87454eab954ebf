#!/usr/bin/env bash
# ctest no_rebuild_on_reconfigure: a second ./scripts/run.sh or ./scripts/test.sh must not
# rebuild anything.
#   1. scripts/lib.sh's amgt_build configures only when the options changed or no
#      successful configure is recorded (a stand-in cmake on PATH records the calls);
#   2. a real configure of the real build tree (what `cmake --build` runs by itself after a
#      CMakeLists changes) leaves hypre's generated sources alone (patches/0004), so the
#      build after it has nothing to do and libHYPRE keeps its mtime.
#   test_rebuild.sh SOURCE_DIR BUILD_DIR
set -eu -o pipefail
src=$1 build=$2
fail() { echo "FAIL: $*"; exit 1; }

# --- 1. the scripts' configure step, against a stand-in cmake -----------------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/build"
cat >"$work/bin/cmake" <<'EOF'
#!/bin/sh
echo "$*" >>"$FAKE_CALLS"
case "$1" in --build) exit 0 ;; esac
[ "${FAKE_FAIL:-0}" = 1 ] && exit 1
exit 0
EOF
chmod +x "$work/bin/cmake"
echo "AMGT_WITH_CUDA:BOOL=OFF" >"$work/build/CMakeCache.txt"
touch "$work/build/build.ninja"

# amgt_build as run.sh and test.sh call it; prints how many configure calls it made
configures() {
  : >"$work/calls"
  env PATH="$work/bin:$PATH" FAKE_CALLS="$work/calls" AMGT_BUILD_DIR="$work/build" AMGT_GPU=0 \
    "$@" bash -c "source '$src/scripts/lib.sh'; amgt_build" >"$work/out" 2>&1 || true
  grep -c -- '-S ' "$work/calls" || true
}
[ "$(configures)" = 1 ] || fail "no configure in a tree without a recorded one"
[ "$(configures)" = 0 ] || fail "configured again with the same options: $(cat "$work/calls")"
grep -q -- '--build' "$work/calls" || fail "the build step did not run"
[ "$(configures env AMGT_CMAKE_ARGS=-DX=1)" = 1 ] || fail "new options did not configure"
[ "$(configures env AMGT_CMAKE_ARGS=-DX=1)" = 0 ] || fail "configured twice with the new options"
[ "$(configures env AMGT_CMAKE_ARGS=-DX=2 FAKE_FAIL=1)" = 1 ] || fail "new options did not configure"
grep -q "configure failed" "$work/out" || fail "a failed configure was not reported: $(cat "$work/out")"
[ "$(configures env AMGT_CMAKE_ARGS=-DX=2)" = 1 ] || fail "a failed configure was taken as done"
rm "$work/build/build.ninja"
[ "$(configures env AMGT_CMAKE_ARGS=-DX=2)" = 1 ] || fail "a tree without build files was not configured"
echo "ok: amgt_build configures only when the options change or the last configure failed"

# --- 2. a real configure of this build tree ------------------------------------------------
grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$build/CMakeCache.txt" ||
  { echo "SKIP: not a Ninja build tree"; exit 0; }
ninja -C "$build" -n 2>/dev/null | grep -q 'no work to do' ||
  { echo "SKIP: $build is not up to date (build it, then run the test)"; exit 0; }
lib=$(ls "$build"/lib/libHYPRE.so* | head -1)
seq_mv=$(ls -d "$build"/_deps/hypre-*/src/seq_mv)
lib_before=$(stat -c %y "$lib")
gen_before=$(stat -c '%n %y' "$seq_mv"/csr_spgemm_device_numer[0-9]*.c "$seq_mv"/csr_spgemm_device_symbl[0-9]*.c)
cmake -S "$src" -B "$build" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure failed"; }
gen_after=$(stat -c '%n %y' "$seq_mv"/csr_spgemm_device_numer[0-9]*.c "$seq_mv"/csr_spgemm_device_symbl[0-9]*.c)
[ "$gen_before" = "$gen_after" ] || fail "configure rewrote hypre's generated SpGEMM sources"
plan=$(ninja -C "$build" -n)
if ! grep -q 'no work to do' <<<"$plan"; then
  # CUDA builds: a configure makes ninja relink hypre's own CUDA test drivers (ij, struct, ...;
  # seen on an H100 node: 9 link steps, a few seconds, nothing compiled). The scripts do not
  # configure at all when nothing changed (part 1), so a second run.sh does not pay even that;
  # anything compiled, or a step other than those links, fails.
  grep -q '^AMGT_WITH_CUDA:BOOL=ON$' "$build/CMakeCache.txt" &&
    ! grep -E '^\[[0-9]+/[0-9]+\] ' <<<"$plan" | grep -qv 'Linking CUDA executable bin/' ||
    fail "a configure with nothing changed leaves work to do:
$(head -20 <<<"$plan")"
  echo "ok: CUDA build: a configure relinks hypre's CUDA drivers only ($(grep -c 'Linking CUDA executable' <<<"$plan") links)"
fi
[ "$(stat -c %y "$lib")" = "$lib_before" ] || fail "libHYPRE was rebuilt"
echo "PASS: no rebuild after a configure with nothing changed"
