#!/usr/bin/env python3
"""run.sh's cold rounds until each case is decided: batches of `run.sh --rounds B` on the cases
still open, pooled after each batch (bench/cold_pairs.py's round-paired ratios: stock's cold
total, the first setup and solve of a process, over the mode's), a case dropped once every plugin
mode's interval lies wholly above or wholly below the bound. A batch runs per case the reference
and that case's open plugin modes: one run.sh per set of open modes, on the cases that share it,
in OUT/batch<N>/<k> (k = 1, 2, ...; --all-modes: every mode of --modes on every open case, one
run.sh in OUT/batch<N>/1), so a later call resumes with --resume OUT/batch*/*/run/runs.jsonl.
The processes a decided case or mode no longer takes go to the open ones, so a device call
resolves more pairs than whole-suite rounds.

  python3 bench/cold_rounds.py --cases bench/cases_small.tsv --modes stock,fp64,auto,mixed \\
      [--build build-gpu] [--matrix-dir DIR] [--batch 2] [--deadline S] [--max-batches K] \\
      [--coverage 0.95] [--out DIR] [--resume OUT1/batch*/*/run/runs.jsonl ...] [--json FILE] \\
      [--measure cold|assembled|process] [--reference MODE] [--covariate KEY] [--interval median|t] \\
      [--all-modes] [--heterogeneity]

--heterogeneity: after the table, bench/cold_pairs.py --heterogeneity's lines on the pooled
(adjusted) pairs: whether the case-modes' true ratios differ beyond chance, at --coverage.

--all-modes: the modes a case has decided run again with the open ones (run.sh --modes is one
list for all its cases), and their pairs are pooled as well.

--measure: the time the pairs compare (bench/cold_pairs.py's: the first setup and solve, or
with the assembly, or from HYPRE_Initialize on); the cases are decided on it. --reference: the
mode the others are paired with (default stock, against 0.95; a plugin mode, e.g. fp64 against
fp64-np for what the preload does, against 1.0); it must be among --modes. --covariate KEY:
the cases are decided on the pairs adjusted for a per-process time (bench/cold_pairs.py
--covariate: amgt-solve's probe_api_s follows a process's speed and not the mode, and narrows
a pair's spread by about a third, bench/RESULTS.md record 2026-11-29j); only pairs whose two
processes hold KEY count (batches of a driver without the probes add none), the slope is
estimated again after every batch, and the table's head says per mode whether KEY depends on
the mode (then the adjusted verdicts are not valid).

--interval median|t: what decides (bench/cold_pairs.py --interval): the pairs' median and its
order-statistics interval (default), or their geometric mean and Student's t interval, narrower
where the log ratios spread near a normal law (the table's head gives their skewness and excess
kurtosis), so that fewer batches decide a case.

--deadline S: the seconds this command may take; the run.sh running then is stopped (SIGINT:
run.sh keeps the processes it finished) and pooled with the rest, and a batch starts no run.sh
with less than 5 s left. --resume: the runs.jsonl of earlier batches of the same build on the
same machine (another device call on a warm machine), pooled first, so their decided cases and
modes do not run again. --coverage: of the interval that decides (default 0.95; a case is
looked at after every batch, and each look may decide wrongly with probability up to
(1 - coverage) / 2 a side, so a higher coverage than a single run's 0.9 keeps the looks together
near it). Pool only outputs of one build on one kind of machine.

Prints the pooled table (bench_report's *Cold, round by round*) and the counts; exit status 0, or
2 on a usage error or when run.sh cannot be run at all."""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench_report  # noqa: E402
import bench_runner  # noqa: E402
import cold_pairs  # noqa: E402


def case_file(path):
    """{label: case} of a run.sh case file (bench_runner.read_cases_file), in the file's order."""
    try:
        cases = bench_runner.read_cases_file(path)
    except (OSError, ValueError) as e:
        raise SystemExit(f"cold_rounds: cannot read {path}: {e}")
    return {c["label"]: c for c in cases}


def open_modes(labels, rows, plugin_modes):
    """{case: its plugin modes without a decided verdict yet, a tuple in plugin_modes' order} of
    the cases of `labels` that have some, in labels' order."""
    decided = {(r["case"], r["mode"]) for r in rows if r["verdict"] != "open"}
    todo = {c: tuple(m for m in plugin_modes if (c, m) not in decided) for c in labels}
    return {c: ms for c, ms in todo.items() if ms}


def groups(todo, modes, reference, all_modes=False):
    """[(run.sh --modes, [cases])] of a batch, todo as open_modes gives it: per tuple of open
    modes, the reference and those modes (in --modes order) on the cases open in just those, in
    the order the tuples first appear; all_modes: every mode of `modes` on every case of todo."""
    if all_modes:
        return [(",".join(modes), list(todo))]
    out = {}
    for c, ms in todo.items():
        out.setdefault(ms, []).append(c)
    return [(",".join((reference,) + ms), cs) for ms, cs in out.items()]


def run_batch(runsh, cases, modes, a, out, seconds):
    """One run.sh of a batch: `modes` (its --modes) on `cases` (read_cases_file's dicts, written
    back as run.sh's JSON case lines) with --rounds a.batch; stopped with SIGINT after `seconds`.
    Returns the records of its runs.jsonl (empty when it wrote none)."""
    os.makedirs(out, exist_ok=True)
    cases_file = os.path.join(out, "cases.tsv")
    with open(cases_file, "w") as f:
        f.write("".join(json.dumps(c) + "\n" for c in cases))
    cmd = [runsh, "--no-build", "--cases", cases_file, "--modes", modes, "--repeat", "1", "--rounds",
           str(a.batch), "--no-plots", "--no-stats", "--timeout", str(a.timeout), "--out", os.path.join(out, "run")]
    if a.matrix_dir:
        cmd += ["--matrix-dir", a.matrix_dir]
    env = dict(os.environ, AMGT_BUILD_DIR=a.build)
    with open(os.path.join(out, "run.log"), "w") as log:
        try:
            p = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        except OSError as e:
            raise SystemExit(f"cold_rounds: cannot run {runsh}: {e}")
        try:
            p.wait(timeout=max(1.0, seconds))
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGINT)  # run.sh keeps what finished
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    path = os.path.join(out, "run", "runs.jsonl")
    return cold_pairs.load(path) if os.path.exists(path) else []


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", required=True, help="a run.sh case file")
    ap.add_argument("--modes", default="stock,fp64,auto,mixed", help="run.sh modes, stock among them")
    ap.add_argument("--build", default=os.environ.get("AMGT_BUILD_DIR", "build"))
    ap.add_argument("--matrix-dir", help="run.sh --matrix-dir")
    ap.add_argument("--batch", type=int, default=2, help="rounds a batch (default 2)")
    ap.add_argument("--deadline", type=float, default=3600.0, help="seconds for the whole command")
    ap.add_argument("--max-batches", type=int, default=1000)
    ap.add_argument("--coverage", type=float, default=0.95)
    ap.add_argument("--timeout", type=int, default=60, help="run.sh --timeout: seconds a run")
    ap.add_argument("--out", default=None, help="folder of the batches (default build/results/cold_rounds_<time>)")
    ap.add_argument("--resume", nargs="*", default=[], help="earlier batches' runs.jsonl, pooled first")
    ap.add_argument("--json", help="also write the pooled rows as JSON here")
    ap.add_argument("--measure", choices=tuple(cold_pairs.MEASURES), default="cold",
                    help="the time a pair compares (default cold: first setup + solve)")
    ap.add_argument("--reference", default="stock", help="the mode the others are paired with (default stock)")
    ap.add_argument("--covariate", choices=cold_pairs.COVARIATES,
                    help="decide on the pairs adjusted for this per-process time (bench/cold_pairs.py --covariate)")
    ap.add_argument("--interval", choices=bench_report.COLD_INTERVALS, default="median",
                    help="median (order statistics, default) or t (geometric mean, Student's t)")
    ap.add_argument("--heterogeneity", action="store_true",
                    help="also whether the case-modes' true ratios differ beyond chance (bench/cold_pairs.py's)")
    ap.add_argument("--all-modes", action="store_true",
                    help="run every mode for every open case (default: the reference and the case's open modes)")
    ap.add_argument("--runsh", default=os.path.join(ROOT, "scripts", "run.sh"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    modes = [m for m in a.modes.split(",") if m]
    if a.reference not in modes or len(modes) < 2:
        ap.error(f"--modes needs the reference ({a.reference}) and at least one plugin mode")
    if a.batch < 2 or a.max_batches < 1 or not 0.5 < a.coverage < 1.0:
        ap.error("--batch >= 2 (a batch pairs rounds), --max-batches >= 1, 0.5 < --coverage < 1")
    lines = case_file(a.cases)
    if not lines:
        ap.error(f"{a.cases} holds no case")
    plugin_modes = [m for m in modes if m != a.reference and m != "stock"]
    if not plugin_modes:
        ap.error("--modes needs a plugin mode besides the reference")
    if a.covariate and a.covariate in cold_pairs.measure_keys(a.measure):
        ap.error(f"--covariate {a.covariate} is part of --measure {a.measure}")
    diag, shape, values = {}, {}, {}

    def pool(outs):
        values.clear()
        if not a.covariate:
            return cold_pairs.pooled(outs, reference=a.reference, coverage=a.coverage, measure=a.measure,
                                     interval=a.interval, shape=shape, values=values)
        rows, d = cold_pairs.adjusted(outs, a.covariate, reference=a.reference, coverage=a.coverage,
                                      measure=a.measure, interval=a.interval, shape=shape, values=values)
        diag.update(d)
        return rows
    out = a.out or os.path.join(ROOT, a.build, "results", time.strftime("cold_rounds_%Y%m%d-%H%M%S"))
    t0 = time.monotonic()
    outputs = []
    for path in a.resume:
        try:
            outputs.append((path, cold_pairs.load(path)))
        except (OSError, ValueError) as e:
            raise SystemExit(f"cold_rounds: cannot read {path}: {e}")
    rows = pool(outputs)
    batches = 0
    while batches < a.max_batches:
        todo = open_modes(list(lines), rows, plugin_modes)
        left = a.deadline - (time.monotonic() - t0)
        if not todo or left < 5:
            break
        batches += 1
        print(f"batch {batches}: {len(todo)} open case(s), {sum(map(len, todo.values()))} open case-mode(s), "
              f"{left:.0f} s left", flush=True)
        before = sum(r["pairs"] for r in rows)
        for k, (group_modes, cases) in enumerate(groups(todo, modes, a.reference, a.all_modes), 1):
            left = a.deadline - (time.monotonic() - t0)
            if left < 5:
                break
            folder = os.path.join(out, f"batch{batches}", str(k))
            print(f"  {folder}: --modes {group_modes} on {len(cases)} case(s)", flush=True)
            records = run_batch(a.runsh, [lines[c] for c in cases], group_modes, a, folder, left)
            if records:
                outputs.append((os.path.join(folder, "run", "runs.jsonl"), records))
        rows = pool(outputs)
        if sum(r["pairs"] for r in rows) == before:
            print(f"batch {batches} paired no process (see {os.path.join(out, f'batch{batches}', '*', 'run.log')}); "
                  "stopping")
            break
    rows = [r for r in rows if r["case"] in lines and r["mode"] in plugin_modes]
    if a.covariate and diag:
        for line in cold_pairs.covariate_lines(diag):
            print(line)
    if a.interval == "t" and shape:
        print(cold_pairs.shape_line(shape))
    for line in bench_report.cold_pairs_lines(rows, a.reference, cold_pairs.bound_for(a.reference), a.coverage,
                                              what=cold_pairs.MEASURES[a.measure][0], interval=a.interval):
        print(line)
    if a.heterogeneity:
        labels = {r["mode_label"] for r in rows}
        for line in cold_pairs.heterogeneity_lines({k: v for k, v in values.items()
                                                    if k[0] in lines and k[1] in labels}, a.coverage):
            print(line)
    still = list(open_modes(list(lines), rows, plugin_modes))
    print(f"batches {batches} (plus {len(a.resume)} resumed); open cases left: "
          f"{', '.join(still) if still else 'none'}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"coverage": a.coverage, "interval": a.interval, "measure": a.measure, "reference": a.reference,
                       "batches": batches, "covariate": diag or None, "shape": shape or None, "open_cases": still,
                       "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
