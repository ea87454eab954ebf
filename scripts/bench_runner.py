#!/usr/bin/env python3
"""The benchmark loop behind scripts/run.sh: every case x every mode through amgt-solve, one
JSON result per run, an optional AMGT_STATS run per case and plugin mode, a summary of
speedups against the fastest stock configuration and against hypre's default configuration,
and the figures (scripts/plot.py).

Run it through scripts/run.sh (which builds first); directly:
  scripts/bench_runner.py --solve build/bin/amgt-solve [options] [-- driver arguments]

Modes (--modes, comma-separated); every one runs the same library, which GPU builds build
with hypre's device memory pool:
  stock    AMGT=off, hypre's own kernels, its pool (--vendor-spgemm 0 --vendor-spmv 0
           --pool 1): the honest baseline                                        alias: off
  vendor   AMGT=off, vendor kernels (--vendor-spgemm 1 --vendor-spmv 1 --pool 1; cuSPARSE in
           GPU builds; without effect in CPU builds, where it is dropped: stock runs once)
  stock-default
           AMGT=off, hypre's default configuration, what an existing code had before: no
           device pool and cuSPARSE kernels (--vendor-spgemm 1 --vendor-spmv 1 --pool 0:
           HYPRE_SetGPUMemoryPoolSize(8, 1, 0, 0)); GPU builds only, dropped like vendor
                                                                         alias: default
  stock-binned
           AMGT=off, hypre's own SpGEMM in its binned mode for every product
           (--spgemm-binned 1, hypre_SetSpGemmBinned: not in hypre's public API); GPU builds
           only, dropped like vendor                           (not in the default set)
  fp64     AMGT=fp64      mixed   AMGT=mixed (AMGT_LEVELS as set)      auto   AMGT=auto
  stock-frozen
           AMGT=off, the driver's --frozen 1: with --steps K, the first hierarchy kept for
           every step (setup at step 0 only); needs --steps       (not in the default set)
  auto-resetup  AMGT=auto AMGT_RESETUP=auto;  auto-galerkin  AMGT=auto AMGT_RESETUP=galerkin;
  fp64-resetup  AMGT=fp64 AMGT_RESETUP=auto: the plugin's re-setup of a matrix with the
           hierarchy's structure (Galerkin values only); every other mode runs with
           AMGT_RESETUP unset (off)                                (not in the default set)
  mixed-h  AMGT=mixed AMGT_LEVELS=h     auto-h   AMGT=auto AMGT_LEVELS=h  (not in the default set)
  auto-sh  AMGT=auto AMGT_LEVELS=s,h (fp16 allowed from level 1 on)     (not in the default set)
  auto-hs  AMGT=auto AMGT_LEVELS=h,s,h (the finest level's V-cycle fp16, level 1 fp32)  (not in the default set)
  fp64-mbsr, auto-mbsr  AMGT_LAYOUT=mbsr;  fp64-rows, auto-rows  AMGT_SPGEMM=rows (row-wise
           CSR SpGEMM for every device product);  fp64-hspgemm, auto-hspgemm  AMGT_SPGEMM=stock
           (hypre's own kernel for every device product);  fp64-beside,
           auto-beside  AMGT_SETUP_OVERLAP=1 (the plugin's setup work beside hypre's setup,
           not at its end);  fp64-each, auto-each  AMGT_SETUP_SURVEY=0 (each matrix measured
           and read back as it is prepared, no survey);  fp64-sk, auto-sk  AMGT_SETUP_KERNELS=1
           (hypre's setup kernels the plugin implements on the plugin's at every size);
           fp64-hsk, auto-hsk  AMGT_SETUP_KERNELS=0 (hypre's own setup kernels);  fp64-skl,
           auto-skl  AMGT_SETUP_KERNELS=large (the plugin's from 2^18 entries a block,
           hypre's below: the default, as fp64 and auto);  fp64-np, auto-np  AMGT_PRELOAD=0;
           fp64-pp, auto-pp  AMGT_PRELOAD=plugin;  fp64-pa, auto-pa  AMGT_PRELOAD=always
           (the other modes run with the preload's default, on)            (not in the default set)
"stock best" of a case is, per phase (setup, solve, total, and the cold setup and solve),
the fastest of the stock configurations that ran and converged; a speedup is stock best time
/ mode time (> 1: faster than stock), the headline. Per case and in a second table, the
same against stock-default ("vs hypre's default configuration"). CPU builds run the plugin's
reference kernels, which exist to exercise the hooks, not to be fast: their ratios are
reported as ratios, not as speedups.

--steps K: each run is a sequence of K steps on one matrix and one solver (amgt-solve
--steps K; the values change every step by the case's --drift, default dt): setup = the sum of
the K setups, solve = median per step, total = setups + solves. The summary adds per case a
per-step table (setup ms, solve ms, iterations per mode) and per mode the median re-setup
(steps >= 1) against stock's median setup, (setup + solve) per step against stock and
stock-frozen, iterations per step against stock's. run.sh --steps overrides a case file's.

--solves K: each run is one setup and K solves of the same system (solve = median per
solve, solves = their sum, total = setup + solves). cold: the first setup and solve of each
process (the driver's warm-up run), beside the warm medians.

Results (--out DIR, default build/results/<timestamp>/):
  runs.jsonl    one object per run: case, mode, status, exit code, the driver's JSON line
                ("result"), per-run statistics summary, speedups
  runs.csv      the same, flat
  stats.jsonl   per case and plugin mode: the AMGT_STATS per-level table of one extra run
  summary.txt   the tables printed at the end; summary.json: the same numbers
  logs/         stdout+stderr of every run; figures/: the PNGs of scripts/plot.py
A failing run (input error, hypre error, crash, timeout, not converged) is recorded with its
status and left out of the speedups; the loop goes on.
"""
import argparse
import datetime
import json
import math
import os
import re
import shlex
import statistics
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import matrix  # noqa: E402  (scripts/matrix.py)
from bench_report import (COLD_PHASES, CPU_NOTE, CPU_NOTE_LINES, CSV_FIELDS,  # noqa: E402,F401
                          DEFAULT_REF, PHASES, Report, fmt, process_entry, ratio)

MODES = {
    "stock": {"label": "stock", "amgt": "off", "vendor": 0, "stock": True},
    "vendor": {"label": "stock-vendor", "amgt": "off", "vendor": 1, "stock": True},
    # hypre's default configuration (what an existing code had before): no device pool,
    # cuSPARSE kernels; from the same library
    "stock-default": {"label": "stock-default", "amgt": "off", "vendor": 1, "pool": 0, "stock": True},
    # hypre's own SpGEMM in its binned mode for every product (hypre_SetSpGemmBinned(1), not in
    # hypre's public API): what AMGT_SPGEMM=auto picks per product, here for all of them
    "stock-binned": {"label": "stock-binned", "amgt": "off", "vendor": 0, "binned": 1, "stock": True},
    "fp64": {"label": "fp64", "amgt": "fp64", "vendor": 0, "stock": False},
    "mixed": {"label": "mixed", "amgt": "mixed", "vendor": 0, "stock": False},
    "auto": {"label": "auto", "amgt": "auto", "vendor": 0, "stock": False},
    # the finest level below fp64 inside the V-cycle too (Krylov matvecs stay fp64): every
    # level fp16, unguarded (mixed-h) or guarded per matrix (auto-h)
    "mixed-h": {"label": "mixed-h", "amgt": "mixed", "vendor": 0, "stock": False, "levels": "h"},
    "auto-h": {"label": "auto-h", "amgt": "auto", "vendor": 0, "stock": False, "levels": "h"},
    # auto with fp16 allowed from level 1 on (the finest level's V-cycle fp32, as in auto)
    "auto-sh": {"label": "auto-sh", "amgt": "auto", "vendor": 0, "stock": False, "levels": "s,h"},
    # auto with the finest level's V-cycle in fp16 (guarded), level 1 in fp32, fp16 below
    "auto-hs": {"label": "auto-hs", "amgt": "auto", "vendor": 0, "stock": False, "levels": "h,s,h"},
    # every matrix in the 4x4 tiles (AMGT_LAYOUT=mbsr): what the per-matrix layout rule is
    # measured against
    "fp64-mbsr": {"label": "fp64-mbsr", "amgt": "fp64", "vendor": 0, "stock": False, "layout": "mbsr"},
    "auto-mbsr": {"label": "auto-mbsr", "amgt": "auto", "vendor": 0, "stock": False, "layout": "mbsr"},
    # every device product on the row-wise CSR SpGEMM (AMGT_SPGEMM=rows; auto takes it only
    # for a fine level's light products)
    "fp64-rows": {"label": "fp64-rows", "amgt": "fp64", "vendor": 0, "stock": False, "spgemm": "rows"},
    "auto-rows": {"label": "auto-rows", "amgt": "auto", "vendor": 0, "stock": False, "spgemm": "rows"},
    # every device product on hypre's own kernel (AMGT_SPGEMM=stock): fp64/auto as they were
    # before AMGT_SPGEMM=auto sent a fine level's light products to the row-wise kernel
    "fp64-hspgemm": {"label": "fp64-hspgemm", "amgt": "fp64", "vendor": 0, "stock": False, "spgemm": "stock"},
    "auto-hspgemm": {"label": "auto-hspgemm", "amgt": "auto", "vendor": 0, "stock": False, "spgemm": "stock"},
    # the plugin's setup work beside hypre's setup (AMGT_SETUP_OVERLAP=1: a second thread and
    # stream) instead of at its end, one matrix after another
    "fp64-beside": {"label": "fp64-beside", "amgt": "fp64", "vendor": 0, "stock": False, "overlap": "1"},
    "auto-beside": {"label": "auto-beside", "amgt": "auto", "vendor": 0, "stock": False, "overlap": "1"},
    # the end-of-setup survey off (AMGT_SETUP_SURVEY=0): each matrix's value statistics and
    # fill sample taken and read back as it is prepared, as before the survey
    "fp64-each": {"label": "fp64-each", "amgt": "fp64", "vendor": 0, "stock": False, "survey": "0"},
    "auto-each": {"label": "auto-each", "amgt": "auto", "vendor": 0, "stock": False, "survey": "0"},
    # hypre's setup kernels that the plugin implements on the plugin's at every size
    # (AMGT_SETUP_KERNELS=1: the strength counts, PMIS's sweeps, extended+i's F-F weights, ...)
    "fp64-sk": {"label": "fp64-sk", "amgt": "fp64", "vendor": 0, "stock": False, "setup_kernels": "1"},
    "auto-sk": {"label": "auto-sk", "amgt": "auto", "vendor": 0, "stock": False, "setup_kernels": "1"},
    # hypre's own setup kernels (AMGT_SETUP_KERNELS=0): what the plugin's are measured against
    "fp64-hsk": {"label": "fp64-hsk", "amgt": "fp64", "vendor": 0, "stock": False, "setup_kernels": "0"},
    "auto-hsk": {"label": "auto-hsk", "amgt": "auto", "vendor": 0, "stock": False, "setup_kernels": "0"},
    # the plugin's setup kernels only from 2^18 entries a block (AMGT_SETUP_KERNELS=large, the
    # default, named): a small system's setups run hypre's, its first setup loads none of the plugin's
    "fp64-skl": {"label": "fp64-skl", "amgt": "fp64", "vendor": 0, "stock": False, "setup_kernels": "large"},
    "auto-skl": {"label": "auto-skl", "amgt": "auto", "vendor": 0, "stock": False, "setup_kernels": "large"},
    # the preload (AMGT_PRELOAD) off (np) or of the plugin's kernels only (pp): what loading
    # libHYPRE's kernels beside the application's assembly costs the assembly and saves the
    # first setup (bench/cold_pairs.py --measure assembled)
    "fp64-np": {"label": "fp64-np", "amgt": "fp64", "vendor": 0, "stock": False, "preload": "0"},
    "auto-np": {"label": "auto-np", "amgt": "auto", "vendor": 0, "stock": False, "preload": "0"},
    "fp64-pp": {"label": "fp64-pp", "amgt": "fp64", "vendor": 0, "stock": False, "preload": "plugin"},
    "auto-pp": {"label": "auto-pp", "amgt": "auto", "vendor": 0, "stock": False, "preload": "plugin"},
    # the preload going on through the assembly of a matrix of any size (AMGT_PRELOAD=always),
    # where the default stops at a first matrix of fewer than 400k entries a process
    "fp64-pa": {"label": "fp64-pa", "amgt": "fp64", "vendor": 0, "stock": False, "preload": "always"},
    "auto-pa": {"label": "auto-pa", "amgt": "auto", "vendor": 0, "stock": False, "preload": "always"},
    # sequences of steps (--steps K): stock hypre with the first hierarchy kept for every step
    # (the driver's --frozen 1: setup at step 0 only), what hypre's maintainers suggest for
    # slowly changing matrices; not a configuration of the same method, so never "stock best"
    "stock-frozen": {"label": "stock-frozen", "amgt": "off", "vendor": 0, "stock": True, "frozen": 1},
    # the plugin's re-setup of a matrix with the hierarchy's structure (AMGT_RESETUP): keep
    # C/F splitting, P, R and the coarse patterns and recompute the Galerkin products' values
    "auto-resetup": {"label": "auto-resetup", "amgt": "auto", "vendor": 0, "stock": False, "resetup": "auto"},
    "auto-galerkin": {"label": "auto-galerkin", "amgt": "auto", "vendor": 0, "stock": False,
                      "resetup": "galerkin"},
    "fp64-resetup": {"label": "fp64-resetup", "amgt": "fp64", "vendor": 0, "stock": False, "resetup": "auto"},
}
# modes that only mean something for a sequence of steps (--steps)
STEPS_ONLY = {"stock-frozen"}
ALIASES = {"off": "stock", "own": "stock", "stock-own": "stock", "stock-vendor": "vendor",
           "default": "stock-default", "hypre-default": "stock-default"}
DEFAULT_MODES = "stock,vendor,stock-default,fp64,mixed,auto"
GPU_ONLY = {
    "vendor": "stock vendor kernels: --vendor-spgemm/--vendor-spmv have no effect in a CPU build "
              "(hypre's switches choose between its own and cuSPARSE GPU kernels), so stock ran once; "
              "'stock best' = stock",
    "stock-default": "stock-default (hypre's default configuration: no device pool, cuSPARSE kernels) "
                     "is a GPU configuration: --pool and the vendor switches have no effect in a CPU "
                     "build, so it did not run",
    "stock-binned": "stock-binned (hypre's binned SpGEMM mode) is a GPU configuration: the switch has "
                    "no effect in a CPU build, so it did not run",
}
RESERVED = {"--repeat", "--solves", "--steps", "--frozen", "--pool", "--json", "--vendor-spgemm", "--vendor-spmv", "--spgemm-binned",
            "--help", "-h"}
STATS_ROW = re.compile(
    r"^\s*(?P<level>-?\d+|other)\s+(?P<rows>\S+)\s+(?P<nnz>\S+)\s+(?P<tiles>\S+)\s+(?P<fill>\S+)\s+"
    r"(?P<prec>\S+)\s+(?P<conv>\d+)\s+(?P<spgemm_calls>\d+)\s+(?P<spgemm_ms>[\d.eE+-]+)\s+"
    r"(?P<spmv_calls>\d+)\s+(?P<spmv_ms>[\d.eE+-]+)\s+(?P<fallbacks>\d+)\s+(?P<path>\S+)\s*$")


def log(msg):
    print(f"[amgt] {msg}", file=sys.stderr, flush=True)


def parse_modes(text, gpu_build):
    modes, notes = [], []
    for m in [m.strip() for m in text.split(",") if m.strip()]:
        key = ALIASES.get(m, m)
        if key not in MODES:
            raise SystemExit(f"run.sh: unknown mode {m!r} ({', '.join(MODES)})")
        if key not in modes:
            modes.append(key)
    if not gpu_build:
        for key, note in GPU_ONLY.items():
            if key in modes:
                modes.remove(key)
                if "stock" not in modes:
                    modes.insert(0, "stock")
                notes.append(note)
    return modes, notes


def round_order(modes, rnd):
    """The order of a case's modes in round rnd of --rounds: the list turned by rnd places, so
    that over len(modes) rounds each mode takes each place once (whatever a place costs, the
    first process after another case's or the one after stock's, falls on every mode alike;
    round 0 keeps the order given)."""
    if not modes:
        return []
    k = rnd % len(modes)
    return list(modes[k:]) + list(modes[:k])


def matrix_name(path):
    """A matrix file's name without its folder and .mtx / .mtx.gz."""
    return re.sub(r"(\.mtx)?(\.gz)?$", "", os.path.basename(path))


def case_label_from_args(args):
    a = list(args)
    if "--problem" in a and "--n" in a:
        return f"{a[a.index('--problem') + 1]}-n{a[a.index('--n') + 1]}"
    for i, x in enumerate(a):
        if x == "--matrix" and i + 1 < len(a):
            return matrix_name(a[i + 1])
        if x.startswith("--matrix="):
            return matrix_name(x.split("=", 1)[1])
        if x.startswith("--problem="):
            return x.split("=", 1)[1]
    return "case"


def relocate_matrices(cases, matrix_dir):
    """--matrix-dir: each case's --matrix FILE that does not exist taken from matrix_dir by its
    matrix's name (NAME.mtx or NAME.mtx.gz there: matrix.matrix_files), in place; returns the
    notes of what moved or is still missing."""
    there = matrix.matrix_files(matrix_dir)
    moved, missing = 0, []
    for c in cases:
        args = c["args"]
        for i, x in enumerate(args):
            if x == "--matrix" and i + 1 < len(args):
                k, path, eq = i + 1, args[i + 1], False
            elif x.startswith("--matrix="):
                k, path, eq = i, x.split("=", 1)[1], True
            else:
                continue
            if os.path.exists(path):
                continue
            name = matrix_name(path)
            if name in there:
                args[k] = f"--matrix={there[name]}" if eq else there[name]
                moved += 1
            else:
                missing.append(os.path.basename(path))
    notes = []
    if moved:
        notes.append(f"{moved} matrix file(s) of the cases taken from {matrix_dir}")
    if missing:
        notes.append(f"not in {matrix_dir} either: {', '.join(sorted(set(missing)))}")
    return notes


def read_cases_file(path):
    cases = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("{"):
                c = json.loads(line)
            else:
                label, _, rest = line.partition("\t")
                if not rest:
                    parts = shlex.split(line)
                    c = {"label": case_label_from_args(parts), "args": parts}
                else:
                    c = {"label": label.strip(), "args": shlex.split(rest)}
            c.setdefault("set", "cases-file")
            cases.append(c)
    return cases


def unique_labels(cases):
    seen = {}
    for c in cases:
        base = c["label"]
        if base in seen:
            seen[base] += 1
            c["label"] = f"{base}#{seen[base]}"
        else:
            seen[base] = 1
    return cases


def last_json(text):
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            try:
                return json.loads(line)
            except ValueError:
                return None
    return None


def parse_stats(text):
    """The AMGT_STATS table (rank 0) -> {'mode', 'levels': [...], 'fallback_reasons'} or None."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^AMGT statistics \(rank (\d+) of (\d+)\): mode (\S+?)(?:, schedule (\S+))?$", line.strip())
        if not m:
            continue
        out = {"rank": int(m.group(1)), "ranks": int(m.group(2)), "mode": m.group(3),
               "schedule": m.group(4), "levels": [], "fallback_reasons": {}}
        out["notes"] = []
        in_table = True
        for row in lines[i + 2:]:
            r = STATS_ROW.match(row) if in_table else None
            if not r:
                in_table = False
                if row.startswith("AMGT fallbacks to stock hypre by reason:"):
                    for k, v in re.findall(r"(\S+)=(\d+)", row):
                        out["fallback_reasons"][k] = int(v)
                elif row.startswith("AMGT: "):  # the library's notes (e.g. per-matrix kernel choices)
                    out["notes"].append(row[6:].strip())
                else:
                    break
                continue
            d = r.groupdict()
            lev = {"level": -1 if d["level"] == "other" else int(d["level"])}
            for k in ("rows", "nnz", "tiles"):
                lev[k] = None if d[k] == "-" else int(d[k])
            lev["fill"] = None if d["fill"] == "-" else float(d["fill"])
            lev["prec"] = d["prec"]
            for k in ("conv", "spgemm_calls", "spmv_calls", "fallbacks"):
                lev[k] = int(d[k])
            lev["spgemm_ms"] = float(d["spgemm_ms"])
            lev["spmv_ms"] = float(d["spmv_ms"])
            lev["path"] = d["path"]
            out["levels"].append(lev)
        return out
    return None


def run_command(cmd, env, timeout, log_path):
    t0 = time.time()
    with open(log_path, "w") as logf:
        logf.write("$ " + " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(env_diff(env).items()))
                   + " " + shlex.join(cmd) + "\n")
        logf.flush()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, errors="replace", start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    proc.wait(timeout=10)
                    break
                except subprocess.TimeoutExpired:
                    continue
            out, err = proc.communicate()
            rc = "timeout"
        except KeyboardInterrupt:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            proc.wait()
            raise
        logf.write(out)
        if err:
            logf.write("\n--- stderr ---\n" + err)
        logf.write(f"\n--- exit: {rc} ---\n")
    return rc, out, err, time.time() - t0


_BASE_ENV = dict(os.environ)


def env_diff(env):
    return {k: v for k, v in env.items() if _BASE_ENV.get(k) != v and k.startswith("AMGT")}


def classify(rc, result, err):
    """(status, error message)."""
    lines = [l.strip() for l in (err or "").splitlines() if l.strip() and not l.startswith("---")]
    own = [l for l in lines if re.match(r"^(amgt-solve|AMGT)\b.*(error|fatal)", l, re.I)]
    tail = " | ".join(own[:3] if own else lines[-3:])
    if rc == "timeout":
        return "timeout", "killed after the time limit"
    if isinstance(rc, int) and (rc < 0 or rc > 128):
        sig = -rc if rc < 0 else rc - 128
        return "crashed", f"signal {sig}: {tail}"
    if result is None:
        if rc == 1:
            return "input-error", tail
        return "no-result", f"exit {rc}, no JSON line: {tail}"
    if rc == 2 or result.get("hypre_error"):
        return "hypre-error", tail
    if not result.get("converged"):
        return "not-converged", (f"relative residual {result.get('rel_residual')} after "
                                 f"{result.get('iterations')} iterations")
    if rc != 0:
        return "failed", f"exit {rc}: {tail}"
    return "ok", ""


def geomean(values):
    v = [x for x in values if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None


class Runner(Report):
    MODES = MODES  # what Report's tables read of the modes (stock or plugin)

    def __init__(self, a):
        self.a = a
        self.records = []
        self.stats = []

    def base_cmd(self):
        cmd = [self.a.solve]
        if self.a.np > 1:
            cmd = shlex.split(self.a.mpirun) + ["-np", str(self.a.np)] + cmd
        return cmd

    @staticmethod
    def env_for(mode, stats, base=None):
        """The environment of a run in `mode`: `base` (default this process's environment) with
        the mode's variables (bench/beside_stock.py and bench/ij_compare.py use it too)."""
        env = dict(os.environ if base is None else base)
        env["AMGT"] = MODES[mode]["amgt"]
        if "levels" in MODES[mode]:
            env["AMGT_LEVELS"] = MODES[mode]["levels"]
        env.pop("AMGT_LAYOUT", None)
        if "layout" in MODES[mode]:
            env["AMGT_LAYOUT"] = MODES[mode]["layout"]
        # (a user's own AMGT_SPGEMM stays in the other modes, as before)
        if "spgemm" in MODES[mode]:
            env["AMGT_SPGEMM"] = MODES[mode]["spgemm"]
        env.pop("AMGT_SETUP_OVERLAP", None)
        if "overlap" in MODES[mode]:
            env["AMGT_SETUP_OVERLAP"] = MODES[mode]["overlap"]
        env.pop("AMGT_RESETUP", None)
        if "resetup" in MODES[mode]:
            env["AMGT_RESETUP"] = MODES[mode]["resetup"]
        env.pop("AMGT_SETUP_SURVEY", None)
        if "survey" in MODES[mode]:
            env["AMGT_SETUP_SURVEY"] = MODES[mode]["survey"]
        env.pop("AMGT_SETUP_KERNELS", None)
        if "setup_kernels" in MODES[mode]:
            env["AMGT_SETUP_KERNELS"] = MODES[mode]["setup_kernels"]
        env.pop("AMGT_PRELOAD", None)
        if "preload" in MODES[mode]:
            env["AMGT_PRELOAD"] = MODES[mode]["preload"]
        # statistics synchronise on the GPU: never in timed runs (AMGT_STATS_FILE turns them on too)
        env.pop("AMGT_STATS", None)
        env.pop("AMGT_STATS_FILE", None)
        if stats:
            env["AMGT_STATS"] = "1"
        return env

    @staticmethod
    def mode_args(m):
        """The driver's switches of a mode: vendor kernels, hypre's device pool and (where the
        mode sets it) hypre's binned SpGEMM mode."""
        args = ["--vendor-spgemm", str(m["vendor"]), "--vendor-spmv", str(m["vendor"]),
                "--pool", str(m.get("pool", 1))]
        if m.get("binned"):
            args += ["--spgemm-binned", str(m["binned"])]
        if m.get("frozen"):
            args += ["--frozen", str(m["frozen"])]
        return args

    def steps_args(self):
        """run.sh --steps K: the driver's --steps K (after the case's arguments: it wins)."""
        k = getattr(self.a, "steps", 0) or 0
        return ["--steps", str(k)] if k > 0 else []

    def run_case_mode(self, case, mode, idx, total, rnd=0):
        a = self.a
        m = MODES[mode]
        args = list(case["args"]) + list(a.driver_args)
        vendor = self.mode_args(m)
        cmd = self.base_cmd() + args + vendor + ["--repeat", str(a.repeat), "--solves", str(a.solves),
                                                 "--json"] + self.steps_args()
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{idx:03d}-{case['label']}-{mode}")
        log_rel = os.path.join("logs", slug + ".log")
        rc, out, err, wall = run_command(cmd, self.env_for(mode, False), a.timeout,
                                         os.path.join(a.out, log_rel))
        result = last_json(out)
        status, error = classify(rc, result, err)
        rec = {"case": case["label"], "base_case": case.get("base", case["label"]), "set": case.get("set", ""),
               "mode": mode,
               "mode_label": m["label"], "amgt": m["amgt"], "vendor": m["vendor"],
               "pool": m.get("pool", 1), "np": a.np, "repeat": a.repeat, "solves": a.solves,
               "steps": (result or {}).get("steps"),
               "status": status, "exit_code": rc, "wall_s": round(wall, 3),
               "log": log_rel, "args": shlex.join(args), "error": error, "result": result,
               "stats": None, "round": rnd}
        r = result or {}
        line = (f"[{idx:>{len(str(total))}}/{total}] {case['label']} {m['label']}: {status:13}")
        if result:
            line += (f" setup {fmt(r.get('setup_s'), '.4f')} s  solve {fmt(r.get('solve_s'), '.4f')} s"
                     + (f" (x{a.solves} {fmt(r.get('solves_total_s'), '.4f')} s)" if a.solves > 1 else "")
                     + f"  total {fmt(r.get('total_s'), '.4f')} s  {r.get('iterations')} it"
                     + (f" ({r.get('steps')} steps: median {fmt(r.get('iterations_per_step_median'), 'g')} it/step,"
                        f" re-setup {fmt(r.get('resetup_median_s'), '.4f')} s)" if r.get("steps") else "")
                     + f"  rel.res {fmt(r.get('rel_residual'), '.1e')}"
                     f"  cold {fmt(r.get('cold_setup_s'), '.4f')}/{fmt(r.get('cold_solve_s'), '.4f')} s")
        else:
            line += f" {error[:120]}"
        log(line + f"  ({wall:.1f} s)")
        if a.stats and rnd == 0 and not m["stock"] and status not in ("input-error", "timeout"):
            rec["stats"] = self.stats_run(case, mode, args, vendor, idx)
        self.records.append(rec)
        with open(os.path.join(a.out, "runs.jsonl"), "a") as f:
            f.write(json.dumps(rec) + "\n")

    def stats_run(self, case, mode, args, vendor, idx):
        a = self.a
        # one setup and one solve: the shares per setup and per solve do not depend on --solves
        cmd = self.base_cmd() + args + vendor + ["--repeat", "0", "--solves", "1", "--json"] + self.steps_args()
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{idx:03d}-{case['label']}-{mode}-stats")
        log_rel = os.path.join("logs", slug + ".log")
        # AMGT_TRACE: every plugin SpGEMM/SpMV call of this run, in order (rank 0 with np > 1)
        trace_rel = os.path.join("traces", slug + ".csv")
        os.makedirs(os.path.join(a.out, "traces"), exist_ok=True)
        # AMGT_STATS_FILE: the table in a file of its own (rank 0's with np > 1)
        os.makedirs(os.path.join(a.out, "stats"), exist_ok=True)
        table_path = os.path.join(a.out, "stats", slug + ".txt")
        env = self.env_for(mode, True)
        env["AMGT_TRACE"] = os.path.join(a.out, trace_rel)
        env["AMGT_STATS_FILE"] = table_path
        rc, out, err, wall = run_command(cmd, env, a.timeout, os.path.join(a.out, log_rel))
        if a.np > 1:
            trace_rel += ".rank0"
            table_path += ".rank0"
        if not os.path.exists(os.path.join(a.out, trace_rel)):
            trace_rel = None
        result = last_json(out)
        status, error = classify(rc, result, err)
        table = None
        if os.path.exists(table_path):
            with open(table_path, errors="replace") as f:
                table = parse_stats(f.read())
        if table is None:  # a library without AMGT_STATS_FILE: the table is in the output
            table = parse_stats(err) or parse_stats(out)
        entry = {"case": case["label"], "mode": mode, "np": a.np, "status": status, "log": log_rel,
                 "setup_s": (result or {}).get("setup_s"), "solve_s": (result or {}).get("solve_s"),
                 "table": table, "trace": trace_rel,
                 "table_file": os.path.relpath(table_path, a.out) if os.path.exists(table_path) else None}
        summary = {"status": status if table else "no-table", "setup_s": entry["setup_s"],
                   "solve_s": entry["solve_s"]}
        if table:
            lv = table["levels"]
            summary.update(
                spgemm_calls=sum(l["spgemm_calls"] for l in lv), spgemm_ms=sum(l["spgemm_ms"] for l in lv),
                spmv_calls=sum(l["spmv_calls"] for l in lv), spmv_ms=sum(l["spmv_ms"] for l in lv),
                fallbacks=sum(l["fallbacks"] for l in lv))
            s, v = entry["setup_s"], entry["solve_s"]
            summary["spgemm_share_setup"] = summary["spgemm_ms"] / 1e3 / s if s else None
            summary["spmv_share_solve"] = summary["spmv_ms"] / 1e3 / v if v else None
            log(f"{'':{2 * len(str(idx)) + 4}}+ AMGT_STATS run: SpGEMM {summary['spgemm_calls']} calls "
                f"{summary['spgemm_ms']:.1f} ms ({100 * (summary['spgemm_share_setup'] or 0):.0f}% of setup), "
                f"SpMV {summary['spmv_calls']} calls {summary['spmv_ms']:.1f} ms "
                f"({100 * (summary['spmv_share_solve'] or 0):.0f}% of solve)"
                + (f", {summary['fallbacks']} fallbacks" if summary["fallbacks"] else ""))
        else:
            log(f"{'':{2 * len(str(idx)) + 4}}+ AMGT_STATS run: {status}, no statistics table ({error[:100]})")
        self.stats.append(entry)
        with open(os.path.join(a.out, "stats.jsonl"), "a") as f:
            f.write(json.dumps(entry) + "\n")
        return summary

    # --- after all runs ----------------------------------------------------------------------

    # result fields that are one process's medians (or its cold run): pooled as the median over
    # the processes (total_s is then setup_s + solves_total_s); lists of samples: concatenated
    POOLED_MEDIANS = ("setup_s", "solve_s", "solves_total_s", "cold_setup_s", "cold_solve_s", "cold_total_s")
    SPREAD_OF = ("setup_s", "solve_s", "cold_setup_s")  # what summary.txt prints the spread of
    POOLED_LISTS = ("setup_all", "solve_all", "total_all", "solves_total_all", "iterations_all")

    def pool_rounds(self):
        """--rounds R: the R processes of each case and mode (runs.jsonl's records so far, one per
        process) become one record: the median of the processes' medians per phase, their
        samples together, and the spread of the process medians ((max - min) / median). The
        per-process records go to processes.jsonl."""
        with open(os.path.join(self.a.out, "processes.jsonl"), "w") as f:
            for r in self.records:
                f.write(json.dumps(r) + "\n")
        groups = {}
        for r in self.records:
            groups.setdefault((r["case"], r["mode"]), []).append(r)
        pooled = []
        for (case, mode), rs in groups.items():
            ok = [r for r in rs if r["status"] == "ok" and r["result"]]
            bad = next((r for r in rs if r["status"] != "ok"), None)
            rec = dict(bad or rs[0])  # a failed process marks the pooled record failed
            rec["rounds"] = len(rs)
            rec["wall_s"] = round(sum(r["wall_s"] for r in rs), 3)
            rec["stats"] = next((r["stats"] for r in rs if r["stats"]), None)
            rec["processes"] = [process_entry(r) for r in rs]  # bench_report.PROCESS_KEYS of each
            spread = {}
            if ok:
                res = dict(ok[0]["result"])
                for k in self.POOLED_MEDIANS:
                    vals = [r["result"][k] for r in ok if r["result"].get(k) is not None]
                    res[k] = statistics.median(vals) if vals else None
                    if k in self.SPREAD_OF and len(vals) > 1 and res[k]:
                        spread[k[:-2]] = (max(vals) - min(vals)) / res[k]
                # total = setup + solves, as the driver defines it (not the median of the totals)
                if res.get("setup_s") is not None and res.get("solves_total_s") is not None:
                    res["total_s"] = res["setup_s"] + res["solves_total_s"]
                # --steps: per step, the median over the processes; the scalars likewise
                for k in ("step_setup_s", "step_solve_s", "step_update_s"):
                    lists = [r["result"].get(k) for r in ok]
                    if lists and all(isinstance(v, list) and len(v) == len(lists[0]) for v in lists):
                        res[k] = [statistics.median(col) for col in zip(*lists)]
                for k in ("first_setup_s", "resetup_median_s", "steps_setup_total_s", "steps_solve_total_s"):
                    vals = [r["result"][k] for r in ok if r["result"].get(k) is not None]
                    if vals:
                        res[k] = statistics.median(vals)
                for k in self.POOLED_LISTS:
                    if all(isinstance(r["result"].get(k), list) for r in ok):
                        res[k] = [v for r in ok for v in r["result"][k]]
                its = [r["result"].get("iterations") for r in ok]
                res["iterations"] = max((i for i in its if i is not None), default=None)  # the most any took
                res["iterations_by_process"] = its
                rec["result"] = res
            rec["spread"] = spread
            pooled.append(rec)
        self.records = pooled

    def derive(self):
        """Stock best per case and phase, speedups per run (against stock best, against
        stock-default, cold against stock best's cold), geomeans per mode."""
        by_case = {}
        for r in self.records:
            by_case.setdefault(r["case"], []).append(r)
        best, dref = {}, {}
        for case, rs in by_case.items():
            # stock configurations of the same method (stock-frozen keeps an old hierarchy: not one)
            stock_ok = [r for r in rs if MODES[r["mode"]]["stock"] and not MODES[r["mode"]].get("frozen")
                        and r["status"] == "ok"]
            best[case] = {}
            for ph in PHASES:
                vals = [(r["result"][f"{ph}_s"], r["mode_label"]) for r in stock_ok
                        if r["result"].get(f"{ph}_s")]
                best[case][ph] = min(vals) if vals else None
            for ph in COLD_PHASES:
                vals = [(r["result"][f"cold_{ph}_s"], r["mode_label"]) for r in stock_ok
                        if r["result"].get(f"cold_{ph}_s")]
                best[case][f"cold_{ph}"] = min(vals) if vals else None
            d = next((r for r in stock_ok if r["mode"] == DEFAULT_REF), None)
            dref[case] = {ph: (d["result"].get(f"{ph}_s") if d else None) for ph in PHASES}
        for r in self.records:
            res = r["result"] or {}
            ok = r["status"] == "ok"
            for ph in PHASES:
                b = best[r["case"]][ph]
                t = res.get(f"{ph}_s")
                r[f"speedup_{ph}"] = (b[0] / t) if (b and t and ok) else None
                d = dref[r["case"]][ph]
                r[f"speedup_default_{ph}"] = (d / t) if (d and t and ok) else None
            for ph in COLD_PHASES:
                b = best[r["case"]][f"cold_{ph}"]
                t = res.get(f"cold_{ph}_s")
                r[f"cold_ratio_{ph}"] = (b[0] / t) if (b and t and ok) else None
        modes = []
        for r in self.records:
            if r["mode"] not in modes:
                modes.append(r["mode"])
        geo = {}
        for mode in modes:
            rs = [r for r in self.records if r["mode"] == mode]
            counted = [r for r in rs if r["speedup_total"] is not None]
            geo[mode] = {"label": MODES[mode]["label"], "cases": len(counted), "runs": len(rs),
                         "failed": [f"{r['case']} ({r['status']})" for r in rs if r["status"] != "ok"],
                         "no_stock_reference": [r["case"] for r in rs if r["status"] == "ok"
                                                and best[r["case"]]["total"] is None]}
            for ph in PHASES:
                geo[mode][ph] = geomean([r[f"speedup_{ph}"] for r in counted])
            vs_default = [r for r in rs if r["speedup_default_total"] is not None]
            geo[mode]["default_cases"] = len(vs_default)
            for ph in PHASES:
                geo[mode][f"default_{ph}"] = geomean([r[f"speedup_default_{ph}"] for r in vs_default])
            cold = [r for r in rs if r["cold_ratio_setup"] is not None]
            geo[mode]["cold_cases"] = len(cold)
            for ph in COLD_PHASES:
                geo[mode][f"cold_{ph}"] = geomean([r[f"cold_ratio_{ph}"] for r in cold])
        self.best, self.dref, self.geo, self.by_case = best, dref, geo, by_case
        self.scaling = self.derive_scaling()


def git_rev():
    try:
        return subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    driver_args = []
    if "--" in argv:
        i = argv.index("--")
        argv, driver_args = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(prog="bench_runner.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--solve", required=True, help="the amgt-solve binary")
    p.add_argument("--gpu-build", type=int, choices=(0, 1), default=0)
    p.add_argument("--modes", default=DEFAULT_MODES)
    p.add_argument("--repeat", type=int, default=3, help="timed runs after one warm-up; medians (0: one run, no warm-up)")
    p.add_argument("--solves", type=int, default=1, help="solves per setup in every run (same matrix and rhs)")
    p.add_argument("--steps", type=int, default=0,
                   help="each run a sequence of K steps (amgt-solve --steps K; values drift by the case's "
                        "--drift, default dt); 0: the cases' own (none: one setup per run)")
    p.add_argument("--rounds", type=int, default=1,
                   help="processes per case and mode, interleaved (round by round: every case, every mode); "
                        "the tables take the median of the processes' medians and print their spread")
    p.add_argument("--np", default="1", help="MPI ranks (mpirun); a list such as 1,2 runs every case at "
                   "each count and adds a table of parallel efficiency")
    p.add_argument("--mpirun", default="mpirun", help="launcher and its options, before -np N")
    p.add_argument("--timeout", type=float, default=3600, help="seconds per run before it is killed")
    p.add_argument("--out", help="results folder (default build/results/<timestamp>)")
    p.add_argument("--results-root", default=os.path.join(ROOT, "build", "results"))
    p.add_argument("--stats", dest="stats", action="store_true", default=True,
                   help="one extra AMGT_STATS=1 run per case and plugin mode (default)")
    p.add_argument("--no-stats", dest="stats", action="store_false")
    p.add_argument("--plots", dest="plots", action="store_true", default=True)
    p.add_argument("--no-plots", dest="plots", action="store_false")
    p.add_argument("--plot-python", default=sys.executable, help="python with matplotlib for plot.py")
    p.add_argument("--suite", action="store_true", help="every matrix scripts/matrix.py finds + generated problems")
    p.add_argument("--set", default="paper,shared,generated", help="suite: paper, shared, generated")
    p.add_argument("--rows", default=None, help="suite: rows of the generated problems, comma-separated "
                   "(default 1e6 in GPU builds, 3e4 in CPU builds)")
    p.add_argument("--kinds", default=None, help="suite: generated kinds (default all)")
    p.add_argument("--only", default=None, help="suite/cases: keep labels matching this regex")
    p.add_argument("--data-dir", default=matrix.default_data_dir(), help="suite: matrix.py's data folder")
    p.add_argument("--cases", help="file of cases: 'label<TAB>driver args' per line (or JSON lines)")
    p.add_argument("--matrix-dir", help="--cases: a --matrix FILE that does not exist is taken from this "
                                        "folder by its file name")
    a = p.parse_args(argv)
    a.driver_args = driver_args
    for x in driver_args:
        if x.split("=")[0] in RESERVED:
            raise SystemExit(f"run.sh: {x} is set by the runner (use run.sh's --repeat and --solves, and "
                             "--modes stock,vendor,stock-default for hypre's own kernels, vendor kernels and "
                             "hypre's default configuration)")
    try:
        a.np_list = [int(x) for x in str(a.np).split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"run.sh: --np {a.np}: a rank count or a comma-separated list of them (1,2)")
    if not a.np_list or len(set(a.np_list)) != len(a.np_list):
        raise SystemExit(f"run.sh: --np {a.np}: give each rank count once")
    a.np = a.np_list[0]
    if a.repeat < 0 or min(a.np_list) < 1 or a.solves < 1 or a.rounds < 1:
        raise SystemExit("run.sh: --repeat >= 0, --solves >= 1, --rounds >= 1 and --np >= 1")
    if a.steps < 0:
        raise SystemExit("run.sh: --steps K needs K >= 1")
    if a.steps > 0 and a.solves > 1:
        raise SystemExit("run.sh: --steps and --solves cannot be combined (each step is one setup and one solve)")
    if not os.access(a.solve, os.X_OK):
        raise SystemExit(f"run.sh: {a.solve} is not executable (build first)")
    modes, notes = parse_modes(a.modes, bool(a.gpu_build))

    has_case_arg = any(x.split("=")[0] in ("--problem", "--matrix") for x in driver_args)
    if a.suite or a.cases:
        if has_case_arg or "--n" in driver_args:
            raise SystemExit("run.sh: --suite/--cases choose the problems: leave out --problem, --n, --matrix")
        cases = []
        if a.cases:
            cases += read_cases_file(a.cases)
            if a.matrix_dir:
                notes += relocate_matrices(cases, a.matrix_dir)
        if a.suite:
            rows = [matrix.parse_count(x) for x in (a.rows or ("1e6" if a.gpu_build else "3e4")).split(",")]
            kinds = a.kinds.split(",") if a.kinds else None
            sets = [s.strip() for s in a.set.split(",") if s.strip()]
            cases += matrix.suite_cases(a.data_dir, sets, rows, kinds, None)
            if "paper" in sets:
                missing = [p["name"] for p in matrix.inventory(a.data_dir, matrix.load_manifest())[0]
                           if not p["path"]]
                if missing:
                    notes.append(f"{'none' if len(missing) == 16 else len(missing)} of the paper's 16 "
                                 f"SuiteSparse matrices {'is' if len(missing) == 16 else 'are not'} in "
                                 f"{a.data_dir}: scripts/matrix.py fetch --all where the internet is "
                                 "reachable (scripts/matrix.py list shows what is there)")
        if a.only:
            rx = re.compile(a.only)
            cases = [c for c in cases if rx.search(c["label"])]
    else:
        if not has_case_arg:
            raise SystemExit("run.sh: no problem: give --problem KIND --n N, --matrix FILE, --suite or --cases")
        cases = [{"label": case_label_from_args(driver_args), "set": "args", "args": []}]
    if not cases:
        raise SystemExit("run.sh: no cases to run")
    steps_only = [m for m in modes if m in STEPS_ONLY]
    if steps_only and a.steps == 0:
        no_steps = [c["label"] for c in cases
                    if not any(x.split("=")[0] == "--steps" for x in list(c["args"]) + driver_args)]
        if no_steps:
            raise SystemExit(f"run.sh: mode {', '.join(steps_only)} needs a sequence of steps: give --steps K "
                             f"(no --steps in case {', '.join(no_steps[:4])})")
    unique_labels(cases)
    for c in cases:
        c["base"] = c["label"]
    if len(a.np_list) > 1:
        # every case at each rank count, as its own case "<label> npN" (stock best per count);
        # the scaling table pairs them by their base label
        cases = [dict(c, label=f"{c['base']} np{n}", np=n) for n in a.np_list for c in cases]

    if not a.out:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        a.out = os.path.join(a.results_root, stamp)
        k = 1
        while os.path.exists(a.out):
            k += 1
            a.out = os.path.join(a.results_root, f"{stamp}-{k}")
    a.out = os.path.abspath(a.out)
    os.makedirs(os.path.join(a.out, "logs"), exist_ok=True)
    for f in ("runs.jsonl", "stats.jsonl"):  # a fresh start in a reused --out folder
        if os.path.exists(os.path.join(a.out, f)):
            os.remove(os.path.join(a.out, f))
    if a.stats:
        open(os.path.join(a.out, "stats.jsonl"), "w").close()
    if os.path.dirname(a.out) == os.path.abspath(a.results_root):
        latest = os.path.join(a.results_root, "latest")  # build/results/latest -> this run
        try:
            if os.path.islink(latest):
                os.remove(latest)
            if not os.path.exists(latest):
                os.symlink(os.path.basename(a.out), latest)
        except OSError:
            pass
    with open(os.path.join(a.out, "cases.tsv"), "w") as f:
        for c in cases:
            f.write(c["label"] + "\t" + shlex.join(list(c["args"]) + driver_args) + "\n")
    meta = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "host": socket.gethostname(),
            "git": git_rev(), "solve": a.solve, "gpu_build": a.gpu_build,
            "np": a.np_list if len(a.np_list) > 1 else a.np, "repeat": a.repeat,
            "solves": a.solves, "steps": a.steps, "rounds": a.rounds,
            "modes": modes, "stats": a.stats, "timeout_s": a.timeout, "driver_args": driver_args,
            "cases": len(cases), "argv": sys.argv,
            "env": {k: v for k, v in os.environ.items()
                    if k.startswith("AMGT_") and k not in ("AMGT_STATS", "AMGT_STATS_FILE")}}
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)

    runner = Runner(a)
    total = len(cases) * len(modes) * a.rounds
    stats_modes = [m for m in modes if not MODES[m]["stock"]] if a.stats else []
    log(f"{len(cases)} case(s) x {len(modes)} mode(s) = {total} runs"
        + (f" (+ up to {len(cases) * len(stats_modes)} AMGT_STATS runs)" if stats_modes else "")
        + (f" ({a.rounds} rounds)" if a.rounds > 1 else "")
        + f"; repeat {a.repeat}; solves {a.solves}" + (f"; steps {a.steps}" if a.steps else "") + f"; np {','.join(map(str, a.np_list))}; results in {a.out}")
    for n in notes:
        log("note: " + n)
    interrupted = False
    idx = 0
    try:
        # rounds outermost: the processes of one case and mode are spread over the whole run, so
        # a slow spell of the machine does not fall on one mode; within a round the modes turn
        # (round_order), so no mode always runs first after another case's processes
        for rnd in range(a.rounds):
            for case in cases:
                a.np = case.get("np", a.np)
                for mode in round_order(modes, rnd):
                    idx += 1
                    runner.run_case_mode(case, mode, idx, total, rnd)
    except KeyboardInterrupt:
        interrupted = True
        notes.append(f"interrupted after {len(runner.records)} of {total} runs")
        log("interrupted: writing what ran so far")
    if not runner.records:
        log("no run finished")
        return 130 if interrupted else 1
    if a.rounds > 1:
        runner.pool_rounds()
    text = runner.write_outputs(notes)
    print(text, end="")
    if a.plots and not interrupted:
        plot = os.path.join(HERE, "plot.py")
        probe = subprocess.run([a.plot_python, "-c", "import matplotlib, numpy"], capture_output=True)
        if probe.returncode != 0:
            log(f"figures skipped: matplotlib/numpy missing for {a.plot_python} "
                "(apt-get install python3-matplotlib python3-numpy; then scripts/plot.py " + a.out + ")")
        else:
            pr = subprocess.run([a.plot_python, plot, a.out], capture_output=True, text=True)
            sys.stderr.write(pr.stderr)
            if pr.returncode == 0:
                print(pr.stdout, end="")
            else:
                log(f"scripts/plot.py failed (exit {pr.returncode}); results are complete without figures")
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main())
