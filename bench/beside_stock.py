#!/usr/bin/env python3
"""Each case's AMGT modes against stock hypre timed in the same processes (amgt-solve
--beside-stock): the verdict per case that separate processes cannot give on small systems.

On systems of 1e4-1e6 rows a process's setups and solves run 10-30% faster or slower than the
next process's, whatever the mode (stock against stock too), while the runs within one process
agree to 1-3%. amgt-solve --beside-stock times every run twice in one process, once as stock
hypre (the drop-in's hooks suspended: hypre's own code and kernels) and once in the mode,
interleaved; each process gives its own ratio and the table reports their median over --procs
processes per case and mode (the modes interleaved process by process). The first setup of a
process (cold) is not part of this: it is one per process; run.sh's cold columns hold it.

    python3 bench/beside_stock.py [--build DIR] [--cases FILE] [--modes fp64,auto] [--procs 3]
                                  [--repeat 6] [--null] [--matrices DIR] [--json FILE]
                                  [--timeout S] [--deadline S] [--quick]
    python3 bench/beside_stock.py --from-json FILE [FILE ...]

--modes: run.sh's plugin modes, their environment as run.sh sets it (fp64, auto, fp64-hsk:
AMGT=fp64 AMGT_SETUP_KERNELS=0, ...), or a bare AMGT value.
--cases: a run.sh case file, read as run.sh reads it (LABEL<TAB>amgt-solve arguments, bare
arguments or JSON lines; default bench/cases_small.tsv).
--matrices DIR: where the case file's ../shared/datasets/matrices paths are to be read from.
--deadline S: start no process after S seconds (the table holds what ran; no failure).
--from-json FILE...: no runs; the table of the processes of earlier --json files together.
--null: also AMGT unset with --beside-stock (stock against stock: the method's own spread).
--quick: two generated cases at n = 10 (a check that the driver runs and parses; CPU builds).
Ratios are stock's time over the mode's (> 1: the mode is faster). Exit status 1 when a run
fails, does not converge or prints no JSON.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
# run.sh's reading of a case file, its last-JSON-line parse and its geomean
from bench_runner import MODES, Runner, geomean, last_json, read_cases_file, unique_labels  # noqa: E402

SHARED = "../shared/datasets/matrices"
QUICK = [("laplace7-n10", ["--problem", "laplace7", "--n", "10", "--solver", "pcg"]),
         ("jump7-n10", ["--problem", "jump7", "--n", "10", "--solver", "pcg"])]


def read_cases(path, matrices):
    """(label, driver arguments) of each case of a run.sh case file, as run.sh reads it, with
    ../shared/datasets/matrices moved to `matrices` when given."""
    cases = []
    for c in unique_labels(read_cases_file(path)):
        args = [a.replace(SHARED, matrices) for a in c["args"]] if matrices else list(c["args"])
        cases.append((c["label"], args))
    return cases


def mode_env(mode):
    """A plugin mode's environment as run.sh sets it (fp64-sk: AMGT=fp64 AMGT_SETUP_KERNELS=1);
    a bare AMGT value (fp64, auto, ...) for a name run.sh does not know; unset: no AMGT."""
    if mode in MODES and not MODES[mode]["stock"]:
        return Runner.env_for(mode, False)
    env = {k: v for k, v in os.environ.items() if k not in ("AMGT", "AMGT_SETUP_KERNELS")}
    if mode != "unset":
        env["AMGT"] = mode
    return env


def run_one(solve, args, mode, repeat, timeout):
    cmd = [solve] + list(args) + ["--repeat", str(repeat), "--beside-stock", "--json"]
    try:
        p = subprocess.run(cmd, env=mode_env(mode), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    r = last_json(p.stdout)
    if p.returncode != 0 or r is None:
        tail = (p.stdout + p.stderr).strip().splitlines()[-3:]
        return None, f"exit {p.returncode}: {' | '.join(tail)}"
    if not r.get("converged"):
        return None, "not converged"
    return r, ""


def ratios(r):
    return {"setup": r["stock_setup_s"] / r["setup_s"], "solve": r["stock_solve_s"] / r["solve_s"],
            "total": r["stock_total_s"] / r["total_s"]}


def summarize(runs, case_labels, modes):
    """Per case and mode: the medians of the processes' ratios, the lowest total, stock's median
    total; then the geomeans per mode over the cases and the cases whose median total is below
    0.98. Returns (summary rows, the table as text)."""
    lines = [f"{'case':<16} {'mode':<6} {'rows':>8} {'stock ms':>9} {'setup x':>8} {'solve x':>8} {'total x':>8} "
             f"{'lowest':>7} {'its':>9}"]
    summary = []
    for label in case_labels:
        for mode in modes:
            rs = [x for x in runs if x["case"] == label and x["mode"] == mode]
            if not rs:
                continue
            med = {k: statistics.median(x["ratios"][k] for x in rs) for k in ("setup", "solve", "total")}
            low = min(x["ratios"]["total"] for x in rs)
            its = f"{statistics.median(i for x in rs for i in x['iterations']):g}/" \
                  f"{statistics.median(i for x in rs for i in x['stock_iterations']):g}"
            stock_ms = 1e3 * statistics.median(x["stock_total_s"] for x in rs)
            summary.append({"case": label, "mode": mode, "procs": len(rs), "median": med, "lowest_total": low,
                            "stock_total_ms": stock_ms, "rows": rs[0]["rows"]})
            lines.append(f"{label:<16} {mode:<6} {rs[0]['rows']:>8} {stock_ms:>9.2f} {med['setup']:>8.3f} "
                         f"{med['solve']:>8.3f} {med['total']:>8.3f} {low:>7.3f} {its:>9}")
    for mode in modes:
        s = [x for x in summary if x["mode"] == mode]
        if not s:
            continue
        g = {k: geomean([x["median"][k] for x in s]) or math.nan for k in ("setup", "solve", "total")}
        below = [x["case"] for x in s if x["median"]["total"] < 0.98]
        lines.append(f"geomean {mode}: setup {g['setup']:.3f}, solve {g['solve']:.3f}, total {g['total']:.3f} "
                     f"over {len(s)} cases; total below 0.98: {len(below)}"
                     f"{' (' + ', '.join(below) + ')' if below else ''}")
    return summary, "\n".join(lines)


def merged_runs(files):
    """The processes' rows of earlier --json files, in the files' order; the cases and modes in
    the order first met."""
    runs = []
    for path in files:
        try:
            with open(path) as f:
                runs.extend(json.load(f)["runs"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise SystemExit(f"beside_stock: {path}: not a --json file of this script ({e})")
    cases, modes = [], []
    for r in runs:
        if r["case"] not in cases:
            cases.append(r["case"])
        if r["mode"] not in modes:
            modes.append(r["mode"])
    return runs, cases, modes


def from_json(files):
    """--from-json: the table of the processes of several earlier runs together (e.g. the same
    cases measured in several calls)."""
    runs, cases, modes = merged_runs(files)
    _, text = summarize(runs, cases, modes)
    print(text)
    print(f"beside_stock: {len(runs)} processes from {len(files)} file(s)")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.environ.get("AMGT_BUILD_DIR", os.path.join(ROOT, "build")))
    ap.add_argument("--cases", default=os.path.join(ROOT, "bench", "cases_small.tsv"))
    ap.add_argument("--modes", default="fp64,auto")
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=6)
    ap.add_argument("--null", action="store_true")
    ap.add_argument("--matrices", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--deadline", type=float, default=0.0)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--from-json", nargs="+", default=[], metavar="FILE")
    a = ap.parse_args()
    if a.from_json:
        return from_json(a.from_json)
    solve = os.path.join(a.build, "bin", "amgt-solve")
    if not os.access(solve, os.X_OK):
        raise SystemExit(f"beside_stock: {solve} not found (build first: ./scripts/test.sh or run.sh)")
    if a.procs < 1 or a.repeat < 2 or a.repeat % 2:
        raise SystemExit("beside_stock: --procs must be 1 or more and --repeat even (2 or more)")
    cases = QUICK if a.quick else read_cases(a.cases, a.matrices)
    modes = [m for m in a.modes.split(",") if m]
    if a.null:
        modes.append("unset")
    if a.quick:
        a.procs, a.repeat = 1, 2

    runs, failed, skipped = [], [], 0
    t0 = time.monotonic()
    for p in range(a.procs):
        for label, args in cases:
            for mode in modes:
                if a.deadline > 0 and time.monotonic() - t0 > a.deadline:
                    skipped += 1
                    continue
                r, why = run_one(solve, args, mode, a.repeat, a.timeout)
                if r is None:
                    failed.append(f"{label} {mode} process {p + 1}: {why}")
                    print(f"beside_stock: {label} {mode} process {p + 1} failed: {why}", file=sys.stderr)
                    continue
                row = {"case": label, "mode": mode, "proc": p + 1, "ratios": ratios(r),
                       "stock_total_s": r["stock_total_s"], "total_s": r["total_s"],
                       "iterations": r["iterations_all"], "stock_iterations": r["stock_iterations_all"],
                       "rows": r["rows"], "nnz": r["nnz"]}
                runs.append(row)

    summary, text = summarize(runs, [label for label, _ in cases], modes)
    print(text)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"runs": runs, "summary": summary, "failed": failed}, f, indent=1)
    n = len(runs) + len(failed)
    if skipped:
        print(f"beside_stock: {skipped} processes not started (--deadline {a.deadline:g} s)")
    if failed:
        print(f"beside_stock: {n} runs, failed runs: {len(failed)}")
        return 1
    print(f"beside_stock: {n} runs, all converged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
