#!/usr/bin/env python3
"""Benchmark matrices: the AmgT paper's 16 SuiteSparse matrices, the offline datasets, and
amgt-solve's generated problems.

  scripts/matrix.py list                       what is present, what is missing, what can be generated
  scripts/matrix.py fetch [NAME ...|--all]     download from the SuiteSparse collection (resumable,
                                               sha256-checked) into the data folder
  scripts/matrix.py verify [NAME ...]          re-check the sha256 of downloaded files
  scripts/matrix.py path NAME                  the file of a matrix (exit 1 when absent)
  scripts/matrix.py generate KIND --rows 1e6   amgt-solve arguments of a generated problem
  scripts/matrix.py suite [--rows 1e5]         the benchmark cases, one per line (scripts/run.sh --suite)
  scripts/matrix.py pin [NAME ...]             copy recorded archive sha256s into datasets/MANIFEST.tsv

The list of matrices, their sizes, types and pinned archive checksums are in
datasets/MANIFEST.tsv. Downloads go to the data folder (--dir, $AMGT_DATA_DIR, default data/
at the repository root, ignored by git): NAME.mtx.gz (the matrix, real; complex matrices keep
their real part), archives/NAME.tar.gz (kept unless --no-keep-archive) and checksums.tsv
(sha256 of each archive and matrix file, recorded at the first download and verified later).
Stdlib only; no network access except `fetch`.
"""
import argparse
import csv
import gzip
import hashlib
import http.client
import io
import json
import math
import os
import re
import shlex
import shutil
import signal
import socket
import sys
import tarfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "datasets", "MANIFEST.tsv")
DEFAULT_BASE_URL = "https://sparse.tamu.edu/MM"
GENERATED_KINDS = ["laplace7", "laplace27", "systems3", "aniso7", "jump7"]
BLOCK_SIZE = {"systems3": 3}
CHECKSUM_FIELDS = ["name", "archive", "archive_sha256", "file", "file_sha256", "rows", "cols",
                   "entries", "field", "symmetry", "converted", "source", "recorded_utc"]
EXIT_MISSING = 1     # a requested matrix is absent / a check failed
EXIT_OFFLINE = 3     # the collection could not be reached
CHUNK = 1 << 20


def log(msg):
    print(f"[matrix] {msg}", file=sys.stderr, flush=True)


class FetchError(Exception):
    pass


class OfflineError(FetchError):
    pass


# ---------------------------------------------------------------------------------------------
# Manifest and data folder

def load_manifest(path=MANIFEST):
    with open(path, newline="") as f:
        lines = [l for l in f if not l.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def paper_entries(manifest):
    return [m for m in manifest if m["kind"] == "suitesparse"]


def default_data_dir():
    return os.environ.get("AMGT_DATA_DIR") or os.path.join(ROOT, "data")


def offline_dirs():
    """Folders of real matrices that need no download, in search order."""
    dirs = []
    if os.environ.get("AMGT_DATASETS"):
        dirs.append(os.environ["AMGT_DATASETS"])
    dirs.append(os.path.join(ROOT, "datasets"))
    dirs.append(os.path.normpath(os.path.join(ROOT, "..", "shared", "datasets", "matrices")))
    seen, out = set(), []
    for d in dirs:
        d = os.path.abspath(d)
        if d not in seen and os.path.isdir(d):
            seen.add(d)
            out.append(d)
    return out


def matrix_files(folder):
    """name -> path for every NAME.mtx / NAME.mtx.gz directly in folder."""
    out = {}
    if not os.path.isdir(folder):
        return out
    for f in sorted(os.listdir(folder)):
        m = re.fullmatch(r"(.+)\.mtx(\.gz)?", f)
        if m and os.path.isfile(os.path.join(folder, f)) and not f.startswith("."):
            out.setdefault(m.group(1), os.path.join(folder, f))
    return out


def read_checksums(data_dir):
    path = os.path.join(data_dir, "checksums.tsv")
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        return {r["name"]: r for r in csv.DictReader(f, delimiter="\t")}


def write_checksums(data_dir, table):
    path = os.path.join(data_dir, "checksums.tsv")
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, CHECKSUM_FIELDS, delimiter="\t", extrasaction="ignore")
        w.writeheader()
        for name in sorted(table):
            w.writerow(table[name])
    os.replace(tmp, path)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def locate(name, data_dir, manifest=None):
    """Path of matrix `name`: the data folder first, then the offline folders."""
    for folder in [data_dir] + offline_dirs():
        p = matrix_files(folder).get(name)
        if p:
            return p
    return None


# ---------------------------------------------------------------------------------------------
# Generated problems

def parse_count(text):
    """'1e6', '250000', '2.5e5' -> int."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}")
    if not math.isfinite(v) or v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1: {text!r}")
    return int(round(v))


def grid_n(kind, rows):
    """Grid size N whose row count is closest to `rows` (N >= 2)."""
    bs = BLOCK_SIZE.get(kind, 1)
    n = max(2, int(round((rows / bs) ** (1.0 / 3.0))))
    return n


def generated_rows_nnz(kind, n):
    rows = BLOCK_SIZE.get(kind, 1) * n ** 3
    if kind in ("laplace7", "aniso7", "jump7"):
        nnz = 7 * n ** 3 - 6 * n ** 2
    elif kind == "laplace27":
        nnz = (3 * n - 2) ** 3
    elif kind == "systems3":
        nnz = 45 * n ** 3 - 42 * n ** 2 + 6 * n
    else:
        raise ValueError(kind)
    return rows, nnz


def generated_case(kind, rows=None, n=None):
    if kind not in GENERATED_KINDS:
        raise ValueError(f"unknown generated problem {kind!r} (expected {', '.join(GENERATED_KINDS)})")
    if n is None:
        n = grid_n(kind, rows)
    r, z = generated_rows_nnz(kind, n)
    return {"label": f"{kind}-n{n}", "set": "generated", "args": ["--problem", kind, "--n", str(n)],
            "rows": r, "nnz": z}


# ---------------------------------------------------------------------------------------------
# Download

def _file_url_path(url):
    return urllib.request.url2pathname(url[len("file://"):])


class NotFoundError(FetchError):
    pass


def _attempt(url, part, timeout, progress):
    """One transfer into `part`, appended from its current size. Returns when `part` holds
    the whole file; raises on any failure (what arrived stays in `part`)."""
    offset = os.path.getsize(part) if os.path.exists(part) else 0
    name = os.path.basename(part)[:-len(".part")]
    if url.startswith("file://"):
        src = _file_url_path(url)
        if not os.path.isfile(src):
            raise NotFoundError(f"{url}: no such file")
        if offset > os.path.getsize(src):
            offset = 0
        with open(src, "rb") as fin, open(part, "ab" if offset else "wb") as fout:
            fin.seek(offset)
            shutil.copyfileobj(fin, fout, CHUNK)
        return
    headers = {"User-Agent": "amgt-matrix/1"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    try:
        resp = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=timeout)
    except urllib.error.HTTPError as e:
        if e.code == 416 and offset:
            # Nothing after `offset`: the partial file is complete (the checksum and the
            # archive check decide; a bad one is moved aside and fetched again).
            log(f"{name}: the server has nothing after byte {offset}: taking the partial file as complete")
            return
        if e.code in (404, 410):
            raise NotFoundError(f"{url}: not found (HTTP {e.code})")
        raise FetchError(f"{url}: HTTP {e.code} {e.reason}")
    with resp:
        status = getattr(resp, "status", 200)
        mode = "wb"
        if offset and status == 206:
            cr = resp.headers.get("Content-Range", "")
            m = re.match(r"bytes (\d+)-", cr)
            if not m or int(m.group(1)) != offset:
                os.remove(part)
                raise FetchError(f"unexpected Content-Range {cr!r} for byte {offset}: starting over")
            mode = "ab"
            log(f"{name}: resuming at byte {offset}")
        elif offset:
            log(f"{name}: the server ignored the range request: downloading from the start")
            offset = 0
        length = resp.headers.get("Content-Length")
        total = offset + int(length) if length and length.isdigit() else None
        done, t_last = offset, time.time()
        with open(part, mode) as fout:
            while True:
                block = resp.read(CHUNK)
                if not block:
                    break
                fout.write(block)
                done += len(block)
                if progress and time.time() - t_last > 2.0:
                    t_last = time.time()
                    pct = f" ({100.0 * done / total:.0f}%)" if total else ""
                    log(f"{name}: {done / 1e6:.1f} MB{pct}")
        if total is not None and done < total:
            raise FetchError(f"connection closed after {done} of {total} bytes")


def download(url, dest, timeout=60.0, retries=3, progress=True):
    """Downloads url to dest through dest.part. A .part left by an earlier attempt or run is
    resumed with an HTTP Range request (a server that ignores it sends the whole file and
    the download starts over)."""
    part = dest + ".part"
    last_error = None
    for attempt in range(1, max(1, retries) + 1):
        try:
            _attempt(url, part, timeout, progress)
            os.replace(part, dest)
            return dest
        except NotFoundError:
            raise
        except FetchError as e:
            last_error = e
        except http.client.HTTPException as e:  # IncompleteRead, a dropped connection, ...
            last_error = FetchError(f"{type(e).__name__}: {e}")
        except (urllib.error.URLError, socket.timeout, ConnectionError, OSError) as e:
            reason = getattr(e, "reason", e)
            # Name resolution failures and refused connections mean no network: no retries.
            if isinstance(reason, (socket.gaierror, ConnectionRefusedError)) or \
                    isinstance(e, (socket.gaierror, ConnectionRefusedError)):
                raise OfflineError(f"cannot reach {url}: {reason}")
            last_error = e
        if attempt < retries:
            wait = min(30, 2 ** attempt)
            kept = os.path.getsize(part) if os.path.exists(part) else 0
            log(f"attempt {attempt} failed ({last_error}); {kept} bytes kept; retrying in {wait} s")
            time.sleep(wait)
    kept = os.path.getsize(part) if os.path.exists(part) else 0
    if kept == 0 and isinstance(last_error, (urllib.error.URLError, socket.timeout, ConnectionError)) \
            and not isinstance(last_error, urllib.error.HTTPError):
        # not a byte from the server in any attempt (timeouts, resets): as good as offline
        raise OfflineError(f"cannot reach {url}: {getattr(last_error, 'reason', last_error)} "
                           f"({retries} attempts)")
    raise FetchError(f"{url}: {last_error} (after {retries} attempts; {kept} bytes kept in "
                     f"{os.path.basename(part)}: the next fetch resumes there)")


def extract_matrix(archive, name, dest):
    """Writes NAME/NAME.mtx of the SuiteSparse archive to dest (gzip when dest ends in .gz,
    with mtime 0 so equal matrices give equal files). Complex values keep their real part.
    Returns the header facts."""
    with tarfile.open(archive, "r:gz") as tar:
        member = None
        for m in tar:
            if m.isfile() and os.path.basename(m.name) == f"{name}.mtx":
                member = m
                break
        if member is None:
            raise FetchError(f"{archive}: no {name}/{name}.mtx inside")
        src = tar.extractfile(member)
        tmp = dest + ".tmp"
        raw = open(tmp, "wb")
        out = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) \
            if dest.endswith(".gz") else raw
        info = {}
        try:
            text = io.TextIOWrapper(src, encoding="latin-1", newline="")
            banner = text.readline()
            words = banner.split()
            if len(words) < 5 or words[0].lower() != "%%matrixmarket" or words[2].lower() != "coordinate":
                raise FetchError(f"{archive}: {name}.mtx is not a Matrix Market coordinate file ({banner.strip()!r})")
            field, symmetry = words[3].lower(), words[4].lower()
            converted = ""
            if field == "complex":
                converted = "complex->real part"
                symmetry_out = {"hermitian": "symmetric"}.get(symmetry, symmetry)
                out.write(f"%%MatrixMarket matrix coordinate real {symmetry_out}\n".encode("latin-1"))
                out.write(f"% amgt scripts/matrix.py: real part of the complex {symmetry} matrix {name}\n".encode("latin-1"))
            else:
                out.write(banner.encode("latin-1"))
            size = None
            buf = []
            for line in text:
                if size is None:
                    if line.startswith("%") or not line.strip():
                        out.write(line.encode("latin-1"))
                        continue
                    size = [int(x) for x in line.split()[:3]]
                    out.write(line.encode("latin-1"))
                    continue
                if converted:
                    parts = line.split()
                    if len(parts) >= 3:
                        line = f"{parts[0]} {parts[1]} {parts[2]}\n"
                buf.append(line)
                if len(buf) >= 65536:
                    out.write("".join(buf).encode("latin-1"))
                    buf.clear()
            if buf:
                out.write("".join(buf).encode("latin-1"))
            if size is None:
                raise FetchError(f"{archive}: {name}.mtx has no size line")
            info = {"rows": size[0], "cols": size[1], "entries": size[2], "field": field,
                    "symmetry": symmetry, "converted": converted}
        finally:
            if out is not raw:
                out.close()
            raw.close()
        os.replace(tmp, dest)
        return info


def fetch_one(entry, data_dir, base_url, keep_archive=True, gz=True, retries=3, timeout=60.0,
              accept_changed=False, force=False):
    name = entry["name"]
    table = read_checksums(data_dir)
    dest = os.path.join(data_dir, f"{name}.mtx.gz" if gz else f"{name}.mtx")
    other = os.path.join(data_dir, f"{name}.mtx" if gz else f"{name}.mtx.gz")
    if not force:
        for existing in (dest, other):
            if os.path.exists(existing):
                rec = table.get(name)
                if rec and rec.get("file") == os.path.basename(existing):
                    if sha256_file(existing) != rec["file_sha256"]:
                        raise FetchError(f"{existing}: sha256 differs from the one recorded at download "
                                         f"({rec['file_sha256'][:12]}...): remove it or run fetch --force")
                    log(f"{name}: present, sha256 verified ({existing})")
                else:
                    log(f"{name}: present, no recorded checksum ({existing})")
                return existing
    url = entry["source"].replace("{base}", base_url.rstrip("/"))
    archives = os.path.join(data_dir, "archives")
    os.makedirs(archives, exist_ok=True)
    archive = os.path.join(archives, os.path.basename(url.split("?")[0]))
    if not os.path.exists(archive):
        log(f"{name}: downloading {url}")
        download(url, archive, timeout=timeout, retries=retries)
    digest = sha256_file(archive)
    pinned = entry.get("sha256", "-")
    recorded = (table.get(name) or {}).get("archive_sha256", "")
    expected, origin = (pinned, "datasets/MANIFEST.tsv") if pinned not in ("", "-") else (recorded, "checksums.tsv")
    if expected and digest != expected:
        bad = archive + ".bad"
        os.replace(archive, bad)
        msg = (f"{name}: sha256 of the archive is {digest}, {origin} says {expected}; "
               f"moved to {bad}")
        if not accept_changed:
            raise FetchError(msg + " (if the collection changed the file on purpose: fetch --accept-changed)")
        log(msg + "; accepted (--accept-changed)")
        os.replace(bad, archive)
    elif expected:
        log(f"{name}: archive sha256 matches {origin}")
    else:
        log(f"{name}: archive sha256 {digest} recorded (first download)")
    try:
        info = extract_matrix(archive, name, dest)
    except (tarfile.TarError, EOFError, OSError, UnicodeDecodeError) as e:
        os.replace(archive, archive + ".bad")
        raise FetchError(f"{name}: the archive is damaged ({e}); moved to {archive}.bad: fetch again")
    if os.path.exists(other) and other != dest:
        os.remove(other)
    if str(info["rows"]) != entry.get("rows") and entry.get("rows", "").isdigit():
        log(f"{name}: warning: {info['rows']} rows, datasets/MANIFEST.tsv says {entry['rows']}")
    if info["converted"]:
        log(f"{name}: {info['field']} matrix: kept the real part (amgt-solve reads real matrices)")
    table = read_checksums(data_dir)
    table[name] = {"name": name, "archive": os.path.relpath(archive, data_dir),
                   "archive_sha256": digest, "file": os.path.basename(dest),
                   "file_sha256": sha256_file(dest), "source": url,
                   "recorded_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **info}
    write_checksums(data_dir, table)
    if not keep_archive:
        os.remove(archive)
    log(f"{name}: {dest} ({info['rows']} rows, {info['entries']} stored entries, {info['symmetry']})")
    return dest


# ---------------------------------------------------------------------------------------------
# Commands

def inventory(data_dir, manifest):
    paper = []
    for e in paper_entries(manifest):
        paper.append({**e, "path": locate(e["name"], data_dir)})
    paper_names = {e["name"] for e in paper}
    offline = []
    for folder in offline_dirs():
        for name, path in matrix_files(folder).items():
            if name not in paper_names and all(o["name"] != name for o in offline):
                offline.append({"name": name, "path": path, "folder": folder})
    extra = []
    for name, path in matrix_files(data_dir).items():
        if name not in paper_names and all(o["name"] != name for o in offline):
            extra.append({"name": name, "path": path, "folder": data_dir})
    return paper, offline, extra


def print_offline_help(data_dir, manifest, missing, out=sys.stderr):
    paper, offline, extra = inventory(data_dir, manifest)
    present = [p for p in paper if p["path"]]
    print(f"\nmissing ({len(missing)}): {' '.join(missing) if missing else '-'}", file=out)
    print(f"present of the paper's 16 ({len(present)}): "
          f"{' '.join(p['name'] for p in present) if present else '-'}", file=out)
    for folder in offline_dirs() + ([data_dir] if extra else []):
        names = [o["name"] for o in offline + extra if o["folder"] == folder]
        if names:
            print(f"offline matrices in {folder} ({len(names)}): {' '.join(names)}", file=out)
    print("generated problems (no download; amgt-solve builds them): "
          f"{', '.join(GENERATED_KINDS)}", file=out)
    print("  e.g. scripts/matrix.py generate jump7 --rows 1e6   ->  amgt-solve --problem jump7 --n 100",
          file=out)
    print("  or   scripts/run.sh --suite --set shared,generated --rows 1e5", file=out)
    print("On a connected machine: scripts/matrix.py fetch --all (then copy the data folder over).",
          file=out)


def cmd_list(args, manifest):
    paper, offline, extra = inventory(args.dir, manifest)
    table = read_checksums(args.dir)
    if args.json:
        print(json.dumps({"data_dir": args.dir, "paper": paper, "offline": offline, "extra": extra,
                          "generated": GENERATED_KINDS}, indent=1))
        return 0
    print(f"The AmgT paper's 16 SuiteSparse matrices (data folder: {args.dir})")
    print(f"  {'name':18} {'group':11} {'rows':>9} {'nnz':>10}  {'type':34} status")
    for p in paper:
        group = p["origin"].split("/")[0]
        if p["path"]:
            rec = table.get(p["name"])
            status = p["path"] + ("" if rec else "  (no recorded checksum)")
        else:
            status = "missing (scripts/matrix.py fetch " + p["name"] + ")"
        print(f"  {p['name']:18} {group:11} {int(p['rows']):>9} {int(p['nnz']):>10}  {p['type']:34} {status}")
    for folder in offline_dirs():
        names = [o["name"] for o in offline if o["folder"] == folder]
        if not names:
            continue
        print(f"\nOffline matrices in {folder} ({len(names)}; no download needed):")
        width = max(len(n) for n in names) + 2
        per_line = max(1, 96 // width)
        for i in range(0, len(names), per_line):
            print("  " + "".join(f"{n:{width}}" for n in names[i:i + per_line]).rstrip())
    if extra:
        print(f"\nOther matrices in the data folder ({len(extra)}): " + " ".join(e["name"] for e in extra))
    print("\nGenerated problems (amgt-solve --problem KIND --n N; scripts/matrix.py generate KIND --rows R):")
    for e in manifest:
        if e["kind"] == "generated":
            print(f"  {e['name']:10} rows {e['rows']:5} nnz {e['nnz']:16} {e['notes']}")
    return 0


def select_entries(manifest, names, all_):
    paper = paper_entries(manifest)
    if all_ or not names:
        return paper
    by = {e["name"].lower(): e for e in paper}
    out = []
    for n in names:
        e = by.get(n.lower())
        if e is None:
            gen = " (a generated problem: scripts/matrix.py generate)" if n in GENERATED_KINDS else ""
            raise SystemExit(f"matrix.py: unknown matrix {n!r}{gen}; known: {' '.join(x['name'] for x in paper)}")
        out.append(e)
    return out


def cmd_fetch(args, manifest):
    if not args.names and not args.all:
        raise SystemExit("matrix.py fetch: name matrices or give --all")
    entries = select_entries(manifest, args.names, args.all)
    os.makedirs(args.dir, exist_ok=True)
    base = args.base_url or os.environ.get("AMGT_SUITESPARSE_URL") or DEFAULT_BASE_URL
    failed, offline = [], None
    for e in entries:
        if offline:
            failed.append(e["name"])
            continue
        try:
            fetch_one(e, args.dir, base, keep_archive=not args.no_keep_archive, gz=not args.no_gzip,
                      retries=args.retries, timeout=args.timeout, accept_changed=args.accept_changed,
                      force=args.force)
        except OfflineError as err:
            log(f"offline: {err}")
            offline = err
            failed.append(e["name"])
        except FetchError as err:
            log(f"error: {err}")
            failed.append(e["name"])
    if failed:
        if offline:
            log(f"the SuiteSparse collection cannot be reached from here ({base}); nothing more was tried")
        print_offline_help(args.dir, manifest, failed)
        return EXIT_OFFLINE if offline else EXIT_MISSING
    return 0


def cmd_verify(args, manifest):
    table = read_checksums(args.dir)
    names = args.names or sorted(table)
    bad = 0
    for name in names:
        rec = table.get(name)
        if not rec:
            print(f"{name}: no recorded checksum in {args.dir}/checksums.tsv")
            bad += 1
            continue
        path = os.path.join(args.dir, rec["file"])
        if not os.path.exists(path):
            print(f"{name}: {path} missing")
            bad += 1
            continue
        ok = sha256_file(path) == rec["file_sha256"]
        line = f"{name}: {rec['file']} {'ok' if ok else 'SHA256 MISMATCH'}"
        arc = os.path.join(args.dir, rec["archive"])
        if os.path.exists(arc):
            aok = sha256_file(arc) == rec["archive_sha256"]
            pinned = next((e["sha256"] for e in manifest if e["name"] == name), "-")
            if pinned not in ("", "-") and pinned != rec["archive_sha256"]:
                aok = False
            line += f", archive {'ok' if aok else 'SHA256 MISMATCH'}"
            ok = ok and aok
        print(line)
        bad += not ok
    return EXIT_MISSING if bad else 0


def cmd_path(args, manifest):
    p = locate(args.name, args.dir)
    if not p:
        print(f"matrix.py: {args.name}: not found in {args.dir} or {', '.join(offline_dirs()) or '-'}",
              file=sys.stderr)
        if any(e["name"] == args.name for e in paper_entries(manifest)):
            print(f"  fetch it: scripts/matrix.py fetch {args.name}", file=sys.stderr)
        return EXIT_MISSING
    print(p)
    return 0


def cmd_generate(args, manifest):
    cases = []
    for kind in args.kinds:
        if args.n:
            cases.append(generated_case(kind, n=args.n))
        else:
            for r in args.rows:
                cases.append(generated_case(kind, rows=r))
    for c in cases:
        if args.json:
            print(json.dumps(c))
        else:
            print(f"{c['label']:18} rows {c['rows']:>10}  nnz {c['nnz']:>11}   amgt-solve {' '.join(c['args'])}")
    return 0


def suite_cases(data_dir, sets=("paper", "shared", "generated"), rows=(100000,), kinds=None, only=None,
                manifest=None):
    manifest = manifest or load_manifest()
    paper, offline, extra = inventory(data_dir, manifest)
    cases = []
    if "paper" in sets:
        for p in paper:
            if p["path"]:
                cases.append({"label": p["name"], "set": "paper", "args": ["--matrix", p["path"]],
                              "rows": int(p["rows"]), "nnz": int(p["nnz"])})
    if "shared" in sets:
        for o in offline + extra:
            cases.append({"label": o["name"], "set": "shared", "args": ["--matrix", o["path"]]})
    if "generated" in sets:
        for kind in kinds or GENERATED_KINDS:
            for r in rows:
                c = generated_case(kind, rows=r)
                if all(c["label"] != x["label"] for x in cases):
                    cases.append(c)
    if only:
        rx = re.compile(only)
        cases = [c for c in cases if rx.search(c["label"])]
    return cases


def cmd_suite(args, manifest):
    sets = [s.strip() for s in args.set.split(",") if s.strip()]
    for s in sets:
        if s not in ("paper", "shared", "generated"):
            raise SystemExit(f"matrix.py suite: unknown set {s!r} (paper, shared, generated)")
    cases = suite_cases(args.dir, sets, args.rows, args.kinds, args.only, manifest)
    if "paper" in sets:
        missing = [p["name"] for p in inventory(args.dir, manifest)[0] if not p["path"]]
        if missing:
            log(f"{len(missing)} of the paper's 16 matrices are not downloaded (scripts/matrix.py fetch --all): "
                + " ".join(missing))
    for c in cases:
        if args.json:
            print(json.dumps(c))
        else:
            print(c["label"] + "\t" + shlex.join(c["args"]))
    return 0


def cmd_pin(args, manifest):
    table = read_checksums(args.dir)
    names = args.names or sorted(table)
    with open(args.manifest) as f:
        lines = f.read().split("\n")
    header = next(i for i, l in enumerate(lines) if l.startswith("name\t"))
    cols = lines[header].split("\t")
    changed = 0
    for i in range(header + 1, len(lines)):
        parts = lines[i].split("\t")
        if len(parts) != len(cols):
            continue
        row = dict(zip(cols, parts))
        rec = table.get(row["name"])
        if row["name"] in names and rec and row["sha256"] in ("", "-"):
            parts[cols.index("sha256")] = rec["archive_sha256"]
            lines[i] = "\t".join(parts)
            changed += 1
            print(f"{row['name']}: pinned {rec['archive_sha256']}")
    if changed:
        with open(args.manifest, "w") as f:
            f.write("\n".join(lines))
    else:
        print("nothing to pin (no recorded checksum for an unpinned matrix)")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="matrix.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--manifest", default=os.environ.get("AMGT_MANIFEST") or MANIFEST,
                   help="the matrix list (default datasets/MANIFEST.tsv)")
    p.add_argument("--dir", default=default_data_dir(),
                   help="data folder for downloads (default: $AMGT_DATA_DIR or data/ at the repository root)")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    s = sub.add_parser("list", help="the paper's matrices (present/missing), offline matrices, generators")
    s.add_argument("--json", action="store_true")

    s = sub.add_parser("fetch", help="download matrices of the paper from the SuiteSparse collection")
    s.add_argument("names", nargs="*", metavar="NAME")
    s.add_argument("--all", action="store_true", help="all 16")
    s.add_argument("--base-url", help=f"collection's Matrix Market root (default {DEFAULT_BASE_URL}, "
                   "or $AMGT_SUITESPARSE_URL; file:// and http://127.0.0.1 mirrors work too)")
    s.add_argument("--retries", type=int, default=3, help="attempts per file (default 3); a partial "
                   "file is kept and resumed by the next attempt or the next run")
    s.add_argument("--timeout", type=float, default=60.0, help="socket timeout in seconds (default 60)")
    s.add_argument("--no-keep-archive", action="store_true", help="delete the .tar.gz after extraction")
    s.add_argument("--no-gzip", action="store_true", help="store NAME.mtx instead of NAME.mtx.gz")
    s.add_argument("--accept-changed", action="store_true",
                   help="accept an archive whose sha256 differs from the pinned/recorded one")
    s.add_argument("--force", action="store_true", help="extract again even if the matrix is present")

    s = sub.add_parser("verify", help="check downloaded files against their recorded sha256")
    s.add_argument("names", nargs="*", metavar="NAME")

    s = sub.add_parser("path", help="print the file of a matrix (exit 1 when absent)")
    s.add_argument("name", metavar="NAME")

    s = sub.add_parser("generate", help="amgt-solve arguments of generated problems at given sizes")
    s.add_argument("kinds", nargs="+", metavar="KIND", choices=GENERATED_KINDS)
    g = s.add_mutually_exclusive_group()
    g.add_argument("--rows", type=lambda t: [parse_count(x) for x in t.split(",")], default=[10 ** 4, 10 ** 5, 10 ** 6, 10 ** 7],
                   help="target row counts, comma-separated (default 1e4,1e5,1e6,1e7)")
    g.add_argument("--n", type=int, help="grid points per direction instead")
    s.add_argument("--json", action="store_true")

    s = sub.add_parser("suite", help="benchmark cases for scripts/run.sh --suite (label TAB driver args)")
    s.add_argument("--set", default="paper,shared,generated",
                   help="comma-separated: paper (downloaded of the 16), shared (offline datasets), generated")
    s.add_argument("--rows", type=lambda t: [parse_count(x) for x in t.split(",")], default=[10 ** 5],
                   help="row counts of the generated problems (default 1e5)")
    s.add_argument("--kinds", type=lambda t: [k for k in t.split(",") if k], default=None,
                   help=f"generated kinds (default all: {','.join(GENERATED_KINDS)})")
    s.add_argument("--only", help="keep cases whose label matches this regular expression")
    s.add_argument("--json", action="store_true", help="one JSON object per case")

    s = sub.add_parser("pin", help="write recorded archive sha256s into datasets/MANIFEST.tsv")
    s.add_argument("names", nargs="*", metavar="NAME")

    args = p.parse_args(argv)
    args.dir = os.path.abspath(args.dir)
    if getattr(args, "kinds", None):
        bad = [k for k in args.kinds if k not in GENERATED_KINDS]
        if bad:
            p.error(f"unknown generated kind(s) {', '.join(bad)} (expected {', '.join(GENERATED_KINDS)})")
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into head
    manifest = load_manifest(args.manifest)
    handler = {"list": cmd_list, "fetch": cmd_fetch, "verify": cmd_verify, "path": cmd_path,
               "generate": cmd_generate, "suite": cmd_suite, "pin": cmd_pin}[args.cmd]
    try:
        return handler(args, manifest)
    except KeyboardInterrupt:
        log("interrupted; a partial download is kept as .part and resumed next time")
        return 130


if __name__ == "__main__":
    sys.exit(main())
