#!/usr/bin/env bash
# Fetches hypre's upstream tarball the way apt does: Debian carries it as the source package
# hypre_2.32.0.orig.tar.gz. The mirrors are read from this machine's apt configuration
# (sources.list, sources.list.d/*.list and deb822 *.sources), so no host name lives here.
#
#   scripts/fetch_hypre.sh DEST
#   scripts/fetch_hypre.sh --check FILE   exit 0 when FILE is that tarball (its sha256), 1 if not
#
# Tries, for each configured Debian mirror: (1) the pool file through apt's own download
# helper (apt's proxy and transport settings apply), then (2) a temporary deb-src entry and
# `apt-get source --download-only`. Verifies the sha256; exit 0 only with a verified DEST.
set -u -o pipefail

VERSION=2.32.0
SHA256=2277b6f01de4a7d0b01cfe12615255d9640eaa02268565a7ce1a769beab25fa1
FILE="hypre_${VERSION}.orig.tar.gz"
log() { echo "fetch_hypre: $*" >&2; }

verify() { [ -f "$1" ] && echo "${SHA256}  $1" | sha256sum -c --status -; }

if [ "${1:-}" = --check ]; then
  verify "${2:?usage: fetch_hypre.sh --check FILE}"
  exit
fi
DEST=${1:?usage: fetch_hypre.sh DEST}

# Debian mirror URIs from one-line and deb822 sources (only entries that look like Debian
# archives: a Debian suite name, or a path ending in /debian).
mirrors() {
  local etc=/etc/apt
  {
    cat "$etc"/sources.list "$etc"/sources.list.d/*.list 2>/dev/null |
      awk '$1 ~ /^deb(-src)?$/ { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) { print $i, $(i+1); break } }'
    for f in "$etc"/sources.list.d/*.sources; do
      [ -f "$f" ] || continue
      awk 'BEGIN { RS = ""; FS = "\n" }
           { u = ""; s = "";
             for (i = 1; i <= NF; i++) {
               if ($i ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", $i); u = $i }
               if ($i ~ /^Suites:/) { sub(/^Suites:[ \t]*/, "", $i); s = $i } }
             n = split(u, us, /[ \t]+/); split(s, ss, /[ \t]+/);
             for (j = 1; j <= n; j++) print us[j], ss[1] }' "$f"
    done
  } | awk '$2 ~ /^(sid|unstable|testing|stable|oldstable|trixie|forky|bookworm|bullseye|buster)/ || $1 ~ /\/debian\/?$/ { print $1 }' |
    sed 's#/*$##' | grep -v -- '-security$' | awk '!seen[$0]++'
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

list=$(mirrors)
if [ -z "$list" ]; then
  log "no Debian mirror found in /etc/apt"
  exit 1
fi

for uri in $list; do
  url="$uri/pool/main/h/hypre/$FILE"
  log "trying $url"
  rm -f "$tmp/$FILE"
  if [ -x /usr/lib/apt/apt-helper ]; then
    /usr/lib/apt/apt-helper download-file "$url" "$tmp/$FILE" "SHA256:$SHA256" >/dev/null 2>&1 || true
  fi
  if ! verify "$tmp/$FILE" && command -v curl >/dev/null; then
    curl -fsSL --retry 2 --max-time 300 -o "$tmp/$FILE" "$url" || true
  fi
  if verify "$tmp/$FILE"; then
    mv "$tmp/$FILE" "$DEST"
    log "verified $FILE from the Debian archive"
    exit 0
  fi
done

# deb-src route: a throwaway apt state that knows the source index of suites carrying 2.32.0.
mkdir -p "$tmp/lists/partial" "$tmp/src"
: >"$tmp/sources.list"
for uri in $list; do
  for suite in unstable testing trixie; do
    echo "deb-src [trusted=yes] $uri $suite main" >>"$tmp/sources.list"
  done
done
opts=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
      -o "Dir::State::Lists=$tmp/lists" -o "Debug::NoLocking=1" -qq)
if apt-get "${opts[@]}" update >/dev/null 2>&1; then
  ver=$(apt-cache "${opts[@]}" showsrc hypre 2>/dev/null | awk '/^Version:/ { print $2 }' | grep "^${VERSION}-" | head -1)
  if [ -n "$ver" ]; then
    (cd "$tmp/src" && apt-get "${opts[@]}" source --download-only "hypre=$ver" >/dev/null 2>&1) || true
    if verify "$tmp/src/$FILE"; then
      mv "$tmp/src/$FILE" "$DEST"
      log "verified $FILE via apt-get source (hypre $ver)"
      exit 0
    fi
  else
    log "the configured mirrors' source indexes carry no hypre ${VERSION}"
  fi
fi
log "could not obtain $FILE from the Debian archive"
exit 1
