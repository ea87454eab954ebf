#!/usr/bin/env bash
# ctest offline_bundle_check: scripts/offline_bundle.sh --check names what a prepared folder
# lacks and succeeds only on a complete one (no network: the folders are made here).
#   test_offline_bundle.sh SOURCE_DIR
set -u -o pipefail
script=$1/scripts/offline_bundle.sh
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

# usage errors: exit 2
"$script" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "no arguments: exit $rc, expected 2"
"$script" --check >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "--check without a folder: exit $rc, expected 2"
"$script" "$work/x" --bogus >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "unknown option: exit $rc, expected 2"
echo "offline_bundle --check: all cases as expected"
