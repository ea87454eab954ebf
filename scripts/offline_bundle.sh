#!/usr/bin/env bash
# Prepares, on a machine with Debian's package sources, the folder that scripts/offline_build.sh
# builds from on a GPU node without them:
#   DIR/hypre_2.32.0.orig.tar.gz   (scripts/fetch_hypre.sh, checked by its sha256)
#   DIR/googletest/                (Debian's /usr/src/googletest, from the googletest package)
#   DIR/zlib/usr/include/zlib.h    (the headers of Debian's zlib1g-dev, for nodes without them)
#   DIR/matrices/                  (only with --matrices SRC: the .mtx/.mtx.gz files of SRC)
#
#   scripts/offline_bundle.sh DIR [--matrices SRC]   prepare DIR (what is there already is kept)
#   scripts/offline_bundle.sh --check DIR            say what DIR lacks; exit 0 when complete
#
# Then copy DIR to the node and run `scripts/offline_build.sh DIR BUILD_DIR` there.
set -eu -o pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tarball=hypre_2.32.0.orig.tar.gz
hypre_ok() { "$root/scripts/fetch_hypre.sh" --check "$1"; }

usage() { echo "usage: offline_bundle.sh DIR [--matrices SRC] | --check DIR" >&2; exit 2; }
log() { echo "offline_bundle: $*" >&2; }

# What DIR lacks, one line each (nothing: complete).
lacks() {
  local dir=$1
  if [ ! -f "$dir/$tarball" ]; then echo "$tarball"
  elif ! hypre_ok "$dir/$tarball"; then echo "$tarball (sha256 mismatch)"
  fi
  [ -f "$dir/googletest/CMakeLists.txt" ] || echo "googletest/ (a GoogleTest source tree)"
  [ -f "$dir/zlib/usr/include/zlib.h" ] || echo "zlib/usr/include/zlib.h"
}

[ $# -ge 1 ] || usage
if [ "$1" = --check ]; then
  [ $# -eq 2 ] || usage
  missing=$(lacks "$2")
  if [ -n "$missing" ]; then
    log "$2 lacks:"
    echo "$missing" | sed 's/^/  /' >&2
    exit 1
  fi
  log "$2 is complete"
  exit 0
fi

dir=$1
shift
matrices=
while [ $# -gt 0 ]; do
  case $1 in
    --matrices) matrices=${2:?--matrices needs a folder}; shift 2 ;;
    *) usage ;;
  esac
done
mkdir -p "$dir"

# hypre's tarball from Debian's archive (fetch_hypre.sh verifies it)
hypre_ok "$dir/$tarball" || "$root/scripts/fetch_hypre.sh" "$dir/$tarball"

# GoogleTest's sources and zlib's headers, from Debian's packages
# shellcheck source=lib.sh
source "$root/scripts/lib.sh"
if [ ! -f "$dir/googletest/CMakeLists.txt" ]; then
  [ -f /usr/src/googletest/CMakeLists.txt ] || amgt_apt_install googletest ||
    amgt_die "cannot install Debian's googletest package"
  cp -r /usr/src/googletest "$dir/googletest"
fi
if [ ! -f "$dir/zlib/usr/include/zlib.h" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  chmod 777 "$work" # apt-get download writes as its own user where it can
  (cd "$work" && apt-get download zlib1g-dev >/dev/null) || amgt_die "apt-get download zlib1g-dev failed"
  dpkg-deb -x "$work"/zlib1g-dev_*.deb "$dir/zlib"
fi

if [ -n "$matrices" ]; then
  mkdir -p "$dir/matrices"
  find "$matrices" -maxdepth 1 \( -name '*.mtx' -o -name '*.mtx.gz' \) -exec cp -n {} "$dir/matrices/" \;
fi

missing=$(lacks "$dir")
[ -z "$missing" ] || amgt_die "$dir still lacks: $missing"
log "$dir is ready ($(du -sh "$dir" | cut -f1)); on the node: scripts/offline_build.sh DIR BUILD_DIR"
