#!/usr/bin/env python3
"""hypre's own ij driver, built against the drop-in, stock against the plugin's modes.

The four problems of the "never slower" check (7-point and 27-point Laplacians, AMG-PCG with
the GPU benchmark settings, hypre's own kernels: -mm_vendor 0 -mv_vendor 0), each run as a
separate ij process per mode, the modes interleaved round by round. ij's -benchmark 1 sets up
and solves twice in one process: the second pass (warm) is the one compared; the first (cold)
is reported beside it. Medians over the rounds; ratios are AMGT unset's time over the mode's
(> 1: the mode is faster).

    python3 bench/ij_compare.py [--build DIR] [--modes unset,fp64,auto] [--procs 3]
                                [--problems all|small|large] [--quick] [--json FILE]

--quick: every problem at n = 16 (a check that the driver runs and parses; CPU builds).
Exit status 1 when a run fails, does not converge or prints no timing.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts"))
from bench_runner import MODES, Runner  # noqa: E402

# (stencil flag, its name, n, size class)
PROBLEMS = [("-laplacian", "7pt", 100, "small"), ("-27pt", "27pt", 100, "small"),
            ("-laplacian", "7pt", 250, "large"), ("-27pt", "27pt", 200, "large")]
SETTINGS = ["-solver", "1", "-pmis", "-interptype", "6", "-Pmx", "4", "-tr", "0.1", "-rlx", "18",
            "-th", "0.25", "-mxrs", "0.8", "-mxl", "7", "-tol", "1e-8", "-benchmark", "1",
            "-mm_vendor", "0", "-mv_vendor", "0"]


def mode_env(mode):
    """The environment of a mode: every AMGT variable of the caller's removed, then run.sh's
    variables of the mode (bench_runner.Runner.env_for: fp64-sk AMGT_SETUP_KERNELS=1, fp64-hsk
    0, fp64-skl large, ...) or, for a name run.sh does not know, AMGT=mode; unset: no AMGT."""
    env = {k: v for k, v in os.environ.items() if k != "AMGT" and not k.startswith("AMGT_")}
    if mode == "unset":
        return env
    if mode in MODES and not MODES[mode]["stock"]:
        return Runner.env_for(mode, False, env)
    env["AMGT"] = mode
    return env


def parse(text):
    """(cold setup, cold solve, warm setup, warm solve) seconds and the iterations, or None."""
    times = {"Setup": [], "Solve": []}
    phase = None
    for line in text.splitlines():
        m = re.match(r"\s*(Setup|Solve) phase times", line)
        if m:
            phase = m.group(1)
            continue
        m = re.match(r"\s*wall clock time = ([0-9.eE+-]+) seconds", line)
        if m and phase:
            times[phase].append(float(m.group(1)))
            phase = None
    it = re.search(r"^\s*Iterations = (\d+)", text, re.M)
    res = re.search(r"Final Relative Residual Norm = (\S+)", text)
    if len(times["Setup"]) < 2 or len(times["Solve"]) < 2 or not it or not res:
        return None
    return {"cold_setup": times["Setup"][0], "cold_solve": times["Solve"][0], "setup": times["Setup"][-1],
            "solve": times["Solve"][-1], "iterations": int(it.group(1)), "residual": float(res.group(1))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.environ.get("AMGT_BUILD_DIR", "build"))
    ap.add_argument("--modes", default="unset,fp64,auto")
    ap.add_argument("--procs", type=int, default=3)
    ap.add_argument("--problems", choices=["all", "small", "large"], default="all")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--json")
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args()
    ij = os.path.join(a.build, "bin", "ij")
    if not os.access(ij, os.X_OK):
        sys.exit(f"ij_compare: {ij} not found (build first: ./scripts/test.sh or ./scripts/run.sh)")
    modes = [m.strip() for m in a.modes.split(",") if m.strip()]
    if "unset" not in modes:
        modes.insert(0, "unset")
    problems = []
    for flag, stencil, n, size in PROBLEMS:
        if a.problems not in ("all", size):
            continue
        n = 16 if a.quick else n
        if a.quick and any(p[0] == f"{stencil}-{n}" for p in problems):
            continue
        problems.append((f"{stencil}-{n}", [flag, "-n", str(n), str(n), str(n)], size))
    runs = {}
    failed = []
    for r in range(a.procs):
        for name, prob, _ in problems:
            for mode in modes:
                cmd = [ij] + prob + SETTINGS
                try:
                    p = subprocess.run(cmd, env=mode_env(mode), capture_output=True, text=True, timeout=a.timeout)
                    out = p.stdout + p.stderr
                    rc = p.returncode
                except subprocess.TimeoutExpired:
                    out, rc = "", "timeout"
                got = parse(out) if rc == 0 else None
                if got is None or not got["residual"] <= a.tol:
                    failed.append(f"{name} {mode} round {r}: rc {rc}" + ("" if got is None else f", residual {got['residual']:.2e}"))
                    continue
                runs.setdefault((name, mode), []).append(got)
                print(f"  round {r + 1} {name:9s} {mode:6s} setup {got['setup'] * 1e3:8.2f} ms  solve "
                      f"{got['solve'] * 1e3:8.2f} ms  its {got['iterations']}", file=sys.stderr)
    med = {}
    for key, rs in runs.items():
        med[key] = {k: statistics.median(x[k] for x in rs) for k in ("cold_setup", "cold_solve", "setup", "solve")}
        med[key]["iterations"] = statistics.median(x["iterations"] for x in rs)
        med[key]["processes"] = len(rs)
    print(f"hypre ij, AMG-PCG ({' '.join(SETTINGS)}); medians of {a.procs} process(es); warm = the second "
          "setup and solve of each process; ratio = AMGT unset's time / the mode's")
    print(f"{'problem':10s} {'mode':6s} {'setup ms':>9s} {'solve ms':>9s} {'total ms':>9s} {'its':>4s} "
          f"{'setup x':>8s} {'solve x':>8s} {'total x':>8s} {'cold setup x':>13s}")
    for name, _, _ in problems:
        base = med.get((name, "unset"))
        for mode in modes:
            m = med.get((name, mode))
            if not m:
                print(f"{name:10s} {mode:6s} {'failed':>9s}")
                continue
            tot = m["setup"] + m["solve"]

            def ratio(k):
                return f"{base[k] / m[k]:.3f}" if base and m[k] > 0 else "-"

            total_x = f"{(base['setup'] + base['solve']) / tot:.3f}" if base else "-"
            print(f"{name:10s} {mode:6s} {m['setup'] * 1e3:9.2f} {m['solve'] * 1e3:9.2f} {tot * 1e3:9.2f} "
                  f"{m['iterations']:4.0f} {ratio('setup'):>8s} {ratio('solve'):>8s} {total_x:>8s} "
                  f"{ratio('cold_setup'):>13s}")
    if a.json:
        with open(a.json, "w") as f:
            for (name, mode), m in sorted(med.items()):
                f.write(json.dumps({"problem": name, "mode": mode, **m}) + "\n")
    if failed:
        print("ij_compare: failed runs:\n  " + "\n  ".join(failed))
        return 1
    print(f"ij_compare: {sum(len(v) for v in runs.values())} runs, all converged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
