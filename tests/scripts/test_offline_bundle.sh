#!/usr/bin/env bash
# ctest offline_bundle_check: scripts/offline_bundle.sh --check names what a prepared folder
# lacks and succeeds only on a complete one (no network: the folders are made here). The
# complete folder needs hypre's tarball, which only a build with hypre has verified: given as
# HYPRE_TARBALL, it is linked into one (without it that case is left out, and said so).
#   test_offline_bundle.sh SOURCE_DIR [HYPRE_TARBALL]
set -u -o pipefail
script=$1/scripts/offline_bundle.sh
hypre_tarball=${2:-}
fail() { echo "FAIL: $*"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# an empty folder: all three missing, exit 1
mkdir "$work/empty"
out=$("$script" --check "$work/empty" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "empty folder: exit $rc, expected 1"
for want in "hypre_2.32.0.orig.tar.gz" "googletest/" "zlib/usr/include/zlib.h"; do
  echo "$out" | grep -qF "$want" || fail "empty folder: '$want' not named in: $out"
done

# everything but a tarball that is not hypre's: only the tarball named
mkdir -p "$work/bad/googletest" "$work/bad/zlib/usr/include"
touch "$work/bad/googletest/CMakeLists.txt" "$work/bad/zlib/usr/include/zlib.h"
echo "not hypre" >"$work/bad/hypre_2.32.0.orig.tar.gz"
out=$("$script" --check "$work/bad" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "wrong tarball: exit $rc, expected 1"
echo "$out" | grep -qF "sha256 mismatch" || fail "wrong tarball not named: $out"
echo "$out" | grep -qF "googletest/" && fail "googletest named although present: $out"
echo "$out" | grep -qF "zlib.h" && fail "zlib.h named although present: $out"

# complete: hypre's tarball, a GoogleTest tree and zlib's header: exit 0, nothing named
if [ -n "$hypre_tarball" ]; then
  [ -f "$hypre_tarball" ] || fail "HYPRE_TARBALL $hypre_tarball does not exist"
  hypre_tarball=$(readlink -f "$hypre_tarball")
  mkdir -p "$work/full/googletest" "$work/full/zlib/usr/include"
  touch "$work/full/googletest/CMakeLists.txt" "$work/full/zlib/usr/include/zlib.h"
  ln -s "$hypre_tarball" "$work/full/hypre_2.32.0.orig.tar.gz"
  out=$("$script" --check "$work/full" 2>&1); rc=$?
  [ $rc -eq 0 ] || fail "complete folder: exit $rc, expected 0: $out"
  echo "$out" | grep -qF "is complete" || fail "complete folder not called complete: $out"
  echo "$out" | grep -qF "lacks" && fail "complete folder said to lack something: $out"
  # the same folder without its GoogleTest tree: exit 1, only that named
  rm "$work/full/googletest/CMakeLists.txt"
  out=$("$script" --check "$work/full" 2>&1); rc=$?
  [ $rc -eq 1 ] || fail "folder without googletest: exit $rc, expected 1"
  echo "$out" | grep -qF "googletest/" || fail "googletest not named: $out"
  echo "$out" | grep -qF "hypre_2.32.0" && fail "hypre's tarball named although verified: $out"
  complete="a complete folder accepted"
else
  complete="the complete folder not checked (no verified hypre tarball: a build without hypre)"
fi

# usage errors: exit 2
"$script" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "no arguments: exit $rc, expected 2"
"$script" --check >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "--check without a folder: exit $rc, expected 2"
"$script" "$work/x" --bogus >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown option: exit $rc, expected 2"
echo "offline_bundle --check: all cases as expected; $complete"
