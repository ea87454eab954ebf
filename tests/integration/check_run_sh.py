#!/usr/bin/env python3
"""ctest run_sh_tiny: scripts/run.sh end to end on tiny cases with one repeat, on an existing
build (--no-build): a converging case, one stopped before convergence, one unreadable matrix
file; then three interleaved processes per mode (--rounds 3), pooled; then one and two MPI ranks
in one call (--np 1,2, two solves per setup) when the build has MPI, with its table of parallel
efficiency; then a sequence of steps (--steps 3) in stock, stock-frozen and auto-resetup.
Checks that
runs.jsonl, runs.csv, stats.jsonl (the AMGT_STATS tables, read from their AMGT_STATS_FILE),
summary.txt/json exist and agree with each other and with the definitions: speedups against
stock best, against stock-default (GPU builds), cold ratios, total = setup + solves.

  check_run_sh.py SOURCE_DIR BUILD_DIR WORK_DIR
"""
import csv
import json
import math
import os
import shutil
import subprocess
import sys


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def close(a, b, rel=1e-9):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def run(src, build, out, args):
    env = dict(os.environ, AMGT_BUILD_DIR=build, AMGT_NEED_PLOTS="0")
    for k in ("AMGT", "AMGT_STATS", "AMGT_LEVELS"):
        env.pop(k, None)
    cmd = [os.path.join(src, "scripts", "run.sh"), "--no-build", "--repeat", "1", "--out", out] + args
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    print(f"$ {' '.join(cmd)}\n{p.stdout[-4000:]}\n{p.stderr[-3000:]}")
    check(p.returncode == 0, f"run.sh exited {p.returncode}")
    return p


def load(out):
    for f in ("runs.jsonl", "runs.csv", "stats.jsonl", "summary.txt", "summary.json", "meta.json", "cases.tsv"):
        check(os.path.isfile(os.path.join(out, f)), f"{f} missing in {out}")
    with open(os.path.join(out, "runs.jsonl")) as f:
        recs = [json.loads(l) for l in f if l.strip()]
    with open(os.path.join(out, "runs.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, "stats.jsonl")) as f:
        stats = [json.loads(l) for l in f if l.strip()]
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    with open(os.path.join(out, "summary.txt")) as f:
        text = f.read()
    return recs, rows, stats, summary, text


def num(s):
    return None if s in ("", None) else float(s)


STOCK = ("stock", "vendor", "stock-default")


def consistent(out, expect_cases, modes, gpu=False, solves=1):
    recs, rows, stats, summary, text = load(out)
    check(len(recs) == len(expect_cases) * len(modes), f"{len(recs)} records, expected "
          f"{len(expect_cases)} x {len(modes)}")
    check(len(rows) == len(recs), "runs.csv and runs.jsonl differ in length")
    for rec, row in zip(recs, rows):
        key = f"{rec['case']}/{rec['mode']}"
        check(rec["mode"] in modes, f"{key}: unexpected mode")
        check(rec["status"] == expect_cases[rec["case"]], f"{key}: status {rec['status']}, expected "
              f"{expect_cases[rec['case']]}")
        check(row["case"] == rec["case"] and row["mode"] == rec["mode"] and row["status"] == rec["status"],
              f"{key}: CSV row does not match the JSON record")
        check(os.path.isfile(os.path.join(out, rec["log"])), f"{key}: log {rec['log']} missing")
        res = rec["result"]
        if rec["status"] == "input-error":
            check(res is None and row["total_s"] == "", f"{key}: an input error has no result")
            check("cannot open" in rec["error"], f"{key}: error message lost: {rec['error']!r}")
            continue
        check(res is not None, f"{key}: no driver result")
        check(res["mode"] == rec["amgt"], f"{key}: driver ran AMGT={res['mode']}")
        for k in ("setup_s", "solve_s", "solves_total_s", "total_s", "cold_setup_s", "cold_solve_s",
                  "iterations", "rows", "nnz"):
            check(close(num(row[k]), float(res[k])), f"{key}: CSV {k}={row[k]} vs JSON {res[k]}")
        check(res["solves"] == solves and rec["solves"] == solves and row["solves"] == str(solves),
              f"{key}: solves")
        check(res["pool"] == (0 if rec["mode"] == "stock-default" else 1), f"{key}: --pool of the mode")
        check(len(res["solve_all"]) == solves * len(res["setup_all"]), f"{key}: one time per solve")
        check(close(res["setup_s"] + res["solves_total_s"], res["total_s"], 1e-6), f"{key}: setup+solves != total")
        if solves == 1:
            check(close(res["solve_s"], res["solves_total_s"]), f"{key}: one solve: solve = solves total")
        check(res["cold_setup_s"] > 0 and res["cold_solve_s"] > 0, f"{key}: cold times")
        check((rec["status"] == "ok") == bool(res["converged"]), f"{key}: status vs converged")
    # speedups: stock best / time, per phase, per case; stock-default / time; cold ratios
    def ratio(case, r, field, ref, time_key, csv=True):
        """r[field] == ref / r's time (None when either is missing), and so in runs.csv."""
        want = ref / r["result"][time_key] if (ref and r["status"] == "ok") else None
        got = r[field]
        check((want is None and got is None) or close(want, got), f"{case}/{r['mode']}: {field} {got} vs {want}")
        if csv:
            row = rows[recs.index(r)]
            check((got is None and row[field] == "") or close(num(row[field]), got),
                  f"{case}/{r['mode']}: CSV {field}")

    for case in expect_cases:
        rs = [r for r in recs if r["case"] == case]
        stock = [r for r in rs if r["mode"] in STOCK and r["status"] == "ok"]
        default = next((r for r in stock if r["mode"] == "stock-default"), None)
        for ph in ("setup", "solve"):
            best = min((r["result"][f"cold_{ph}_s"] for r in stock), default=None)
            for r in rs:
                ratio(case, r, f"cold_ratio_{ph}", best, f"cold_{ph}_s")
        for ph in ("setup", "solve", "total"):
            d = default["result"][f"{ph}_s"] if default else None
            for r in rs:
                ratio(case, r, f"speedup_default_{ph}", d, f"{ph}_s", csv=False)
            best = min((r["result"][f"{ph}_s"] for r in stock), default=None)
            check(close(summary["stock_best"][case][ph], best) or (best is None and summary["stock_best"][case][ph] is None),
                  f"{case}: stock best {ph}")
            for r in rs:
                ratio(case, r, f"speedup_{ph}", best, f"{ph}_s")
    # geomeans
    for mode in modes:
        g = summary["modes"][mode]
        for ph in ("setup", "solve", "total"):
            v = [r[f"speedup_{ph}"] for r in recs if r["mode"] == mode and r[f"speedup_{ph}"]]
            want = math.exp(sum(map(math.log, v)) / len(v)) if v else None
            check((want is None and g[ph] is None) or close(want, g[ph]), f"geomean {mode} {ph}: {g[ph]} vs {want}")
            if g[ph] is not None:
                check(f"{g[ph]:.3f}x" in text, f"summary.txt lacks the {mode} {ph} geomean {g[ph]:.3f}x")
    check(summary["failed_runs"] == sum(r["status"] != "ok" for r in recs), "failed_runs count")
    if gpu:
        check("Geometric mean speedup vs stock best" in text, "summary.txt has no geomean table")
        if "stock-default" in modes:
            check("Geometric mean speedup vs hypre's default configuration" in text,
                  "summary.txt has no table against stock-default")
    else:
        # CPU builds: the plugin's reference kernels; ratios, said plainly, not speedups
        check("Geometric mean time ratio vs stock best" in text, "summary.txt has no geomean table")
        check("not speedups of AMGT" in text and "Geometric mean speedup" not in text,
              "CPU summary presents ratios as speedups")
        check(summary["cpu_note"] and not summary["gpu_build"], "summary.json: CPU note")
    check("Cold: the first setup and solve of each process" in text, "summary.txt has no cold table")
    # statistics: one per case and plugin mode whose main run read its input
    plugin = [m for m in modes if m not in STOCK]
    want_stats = {(c, m) for c, st in expect_cases.items() if st != "input-error" for m in plugin}
    check({(s["case"], s["mode"]) for s in stats} == want_stats, "stats.jsonl cases/modes")
    for s in stats:
        check(s["table"] and s["table"]["levels"], f"{s['case']}/{s['mode']}: no per-level table")
        check(s["table_file"] and os.path.isfile(os.path.join(out, s["table_file"])),
              f"{s['case']}/{s['mode']}: the AMGT_STATS_FILE table is missing")
        rec = next(r for r in recs if r["case"] == s["case"] and r["mode"] == s["mode"])
        tot = sum(l["spgemm_calls"] for l in s["table"]["levels"])
        # GPU builds: AMGT_SPGEMM=auto hands device products to hypre (docs/configuration.md), so a plugin
        # mode may count no SpGEMM call of its own; CPU builds run every product in the plugin
        check((gpu or tot > 0) and rec["stats"]["spgemm_calls"] == tot, f"{s['case']}/{s['mode']}: SpGEMM calls")
        check(close(rec["stats"]["spmv_ms"], sum(l["spmv_ms"] for l in s["table"]["levels"]), 1e-9),
              f"{s['case']}/{s['mode']}: SpMV ms")
    for r in recs:
        if r["mode"] in STOCK:
            check(r["stats"] is None, "stock runs carry no plugin statistics")
    if os.path.isdir(os.path.join(out, "figures")):
        for f in ("fig7_breakdown.png", "fig_speedup.png"):
            check(os.path.getsize(os.path.join(out, "figures", f)) > 1000, f"figure {f}")
    return recs


def main():
    src, build, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cases = os.path.join(work, "cases.tsv")
    with open(cases, "w") as f:
        f.write("# tiny cases\n")
        f.write("lap\t--problem laplace7 --n 6\n")
        f.write("stall\t--problem jump7 --n 6 --max-iter 2\n")
        f.write(f"broken\t--matrix {os.path.join(work, 'no-such-file.mtx')}\n")
    cache = open(os.path.join(build, "CMakeCache.txt")).read()
    gpu = "AMGT_WITH_CUDA:BOOL=ON" in cache
    modes = (["stock", "vendor", "stock-default", "fp64", "mixed", "auto"] if gpu
             else ["stock", "fp64", "mixed", "auto"])
    out = os.path.join(work, "np1")
    p = run(src, build, out, ["--cases", cases])
    if not gpu:
        check("no effect in a CPU build" in p.stdout + p.stderr, "CPU build: the vendor note is missing")
        check("stock-default (hypre's default configuration" in p.stdout + p.stderr,
              "CPU build: the stock-default note is missing")
    consistent(out, {"lap": "ok", "stall": "not-converged", "broken": "input-error"}, modes, gpu)
    # --rounds 3: three interleaved processes per case and mode, pooled as the median of their
    # medians, with their spread; each process's record in processes.jsonl
    out = os.path.join(work, "rounds")
    p = run(src, build, out, ["--problem", "laplace7", "--n", "6", "--modes", "off,fp64", "--rounds", "3"])
    recs = consistent(out, {"laplace7-n6": "ok"}, ["stock", "fp64"], gpu)
    with open(os.path.join(out, "processes.jsonl")) as f:
        procs = [json.loads(l) for l in f if l.strip()]
    check(len(procs) == 6, f"processes.jsonl: {len(procs)} records, want 6")
    check([r["round"] for r in procs] == [0, 0, 1, 1, 2, 2], "processes run round by round, every mode each round")
    for r in recs:
        mine = [q for q in procs if q["mode"] == r["mode"]]
        check(r["rounds"] == 3 and len(r["processes"]) == 3, f"{r['mode']}: pooled over 3 processes")
        for k in ("setup_s", "solve_s", "solves_total_s", "cold_setup_s"):
            vals = sorted(q["result"][k] for q in mine)
            check(close(r["result"][k], vals[1]), f"{r['mode']}: {k} is the median of the process medians")
            if k != "solves_total_s":
                want = (vals[2] - vals[0]) / vals[1]
                check(close(r["spread"][k[:-2]], want), f"{r['mode']}: spread of {k}")
        check(close(r["result"]["total_s"], r["result"]["setup_s"] + r["result"]["solves_total_s"]),
              f"{r['mode']}: pooled total = setup + solves")
        check(len(r["result"]["setup_all"]) == 3 * len(mine[0]["result"]["setup_all"]),
              f"{r['mode']}: the samples of all processes")
    _, _, _, summary, text = load(out)
    check(summary["rounds"] == 3, "summary.json records the rounds")
    check("median of 3 processes' " in text and "spread of the process medians" in text,
          "summary.txt says the medians are over processes and prints their spread")
    if "AMGT_WITH_MPI:BOOL=OFF" not in cache and shutil.which("mpirun"):
        # one and two ranks in one call: each count its own case, and the table of parallel
        # efficiency (t(np 1) / (2 t(np 2)) per phase, paired by the case's base label)
        out = os.path.join(work, "np12")
        run(src, build, out, ["--problem", "laplace7", "--n", "6", "--np", "1,2", "--modes", "off,fp64",
                              "--solves", "2"])
        recs = consistent(out, {"laplace7-n6 np1": "ok", "laplace7-n6 np2": "ok"}, ["stock", "fp64"], gpu,
                          solves=2)
        for r in recs:
            n = 2 if r["case"].endswith("np2") else 1
            check(r["np"] == n and r["result"]["np"] == n and r["base_case"] == "laplace7-n6",
                  f"{r['case']}: runs report np {n}")
        _, _, _, summary, text = load(out)
        check("Parallel efficiency" in text, "summary.txt has no parallel efficiency table")
        check(len(summary["scaling"]) == 2, f"summary.json scaling: {summary['scaling']}")
        for sc in summary["scaling"]:
            one = next(r for r in recs if r["mode"] == sc["mode"] and r["np"] == 1)["result"]
            two = next(r for r in recs if r["mode"] == sc["mode"] and r["np"] == 2)["result"]
            check(sc["np"] == 2 and sc["ref_np"] == 1, "scaling pairs np 2 with np 1")
            for ph in ("setup", "solve", "total"):
                check(close(sc[f"efficiency_{ph}"], one[f"{ph}_s"] / (2 * two[f"{ph}_s"])),
                      f"{sc['mode']}: efficiency of {ph}")
    # --steps 3: a sequence per run (the driver's --drift passes through), the sequence modes,
    # the per-step table and its ratios; stock-frozen without --steps is refused
    out = os.path.join(work, "steps")
    run(src, build, out, ["--problem", "laplace7", "--n", "8", "--solver", "pcg", "--drift", "dt", "--steps", "3",
                          "--modes", "stock,stock-frozen,auto-resetup"])
    recs, rows, _, summary, text = load(out)
    check([r["mode"] for r in recs] == ["stock", "stock-frozen", "auto-resetup"], "steps: one record per mode")
    for r in recs:
        res = r["result"]
        check(r["status"] == "ok" and res["steps"] == 3 and res["drift"] == "dt", f"{r['mode']}: a sequence of 3 steps")
        for k in ("step_setup_s", "step_solve_s", "step_iterations", "step_rel_residual"):
            check(len(res[k]) == 3, f"{r['mode']}: {k} has one entry per step")
        check(all(i > 0 for i in res["step_iterations"]), f"{r['mode']}: iterations at every step")
        check(close(res["setup_s"], sum(res["step_setup_s"]), 1e-6), f"{r['mode']}: setup_s = the sum of the steps'")
        check(res["setup_calls"] == (1 if r["mode"] == "stock-frozen" else 3), f"{r['mode']}: setup calls")
    by = {r["mode"]: r for r in recs}
    check("--frozen 1" in open(os.path.join(out, by["stock-frozen"]["log"])).readline(),
          "stock-frozen runs the driver with --frozen 1")
    check("AMGT_RESETUP=auto" in open(os.path.join(out, by["auto-resetup"]["log"])).readline(),
          "auto-resetup sets AMGT_RESETUP=auto")
    check(all(row["step_iterations"] for row in rows), "runs.csv has the per-step iterations")
    check("Sequences of steps (--steps)" in text and "laplace7-n8  (3 steps, drift dt)" in text,
          "summary.txt has the per-step table")
    st = {x["mode"]: x for x in summary["steps"]}
    check(set(st) == {"stock", "stock-frozen", "auto-resetup"}, "summary.json: steps per mode")
    check(close(st["stock"]["total_vs_stock"], 1.0), "stock against itself")
    check(close(st["auto-resetup"]["resetup_vs_stock_setup"],
                by["auto-resetup"]["result"]["resetup_median_s"]
                / sorted(by["stock"]["result"]["step_setup_s"])[1]), "re-setup / stock's median setup")
    env = dict(os.environ, AMGT_BUILD_DIR=build, AMGT_NEED_PLOTS="0")
    p = subprocess.run([os.path.join(src, "scripts", "run.sh"), "--no-build", "--problem", "laplace7", "--n", "6",
                        "--modes", "stock,stock-frozen", "--out", os.path.join(work, "frozen-no-steps")],
                       env=env, capture_output=True, text=True, timeout=120)
    check(p.returncode != 0 and "needs a sequence of steps: give --steps K" in p.stderr,
          f"stock-frozen without --steps is refused: {p.stderr[-500:]}")
    print("PASS: run.sh results consistent")


if __name__ == "__main__":
    main()
