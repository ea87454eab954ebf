#!/usr/bin/env python3
"""Figures of a benchmark results folder (scripts/run.sh writes one under build/results/):

  scripts/plot.py build/results/latest        -> build/results/latest/figures/*.png

fig7_breakdown.png   like Fig. 7 of the AmgT paper: per case, one bar per mode, setup and solve
                     stacked, normalised to the case's stock best total (= 1, dashed). The
                     hatched part of a setup bar is the plugin's SpGEMM share, of a solve bar
                     its SpMV share, both measured in the case's extra AMGT_STATS=1 run (SpGEMM
                     ms / that run's setup, SpMV ms / its solve) and applied to the timed run.
                     Stock bars carry no share (the plugin counts only its own calls).
fig8_calls_<case>.png
                     like Fig. 8: the time of every plugin SpGEMM/SpMV call in call order, one
                     panel per plugin mode, colour by level, from the AMGT_TRACE file of the
                     case's statistics run (rank 0).
fig8_levels_<case>.png
                     the same runs per level: the MEAN time of one SpGEMM and of one SpMV call
                     (total ms / calls, log scale), with the call counts on the bars.
fig_speedup.png      geometric-mean speedup vs stock best per mode (setup, solve, total), with
                     every case as a dot (CPU builds: time ratios of the plugin's reference
                     kernels, labelled as such: not speedups).
fig_steps_<case>.png (--steps) per step of the sequence, one line per mode: setup + solve time
                     (solid; setup alone dashed, none where a mode kept its first hierarchy)
                     and the iterations of the step's solve.

Needs matplotlib and numpy (Debian: python3-matplotlib python3-numpy).
"""
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

SETUP_COLOR = "#4c72b0"
SOLVE_COLOR = "#dd8452"
MODE_COLORS = {"stock": "#7f7f7f", "vendor": "#bcbd22", "stock-default": "#8c564b", "fp64": "#1f77b4",
               "mixed": "#2ca02c", "auto": "#9467bd", "mixed-h": "#17becf", "auto-h": "#e377c2",
               "stock-frozen": "#000000", "auto-resetup": "#d62728", "auto-galerkin": "#ff7f0e",
               "fp64-resetup": "#17becf"}
FAIL_SHORT = {"not-converged": "no conv.", "hypre-error": "hypre err", "input-error": "input err",
              "timeout": "timeout", "crashed": "crashed", "no-result": "no result", "failed": "failed"}


def load(folder):
    runs, stats = [], []
    with open(os.path.join(folder, "runs.jsonl")) as f:
        runs = [json.loads(l) for l in f if l.strip()]
    p = os.path.join(folder, "stats.jsonl")
    if os.path.exists(p):
        with open(p) as f:
            stats = [json.loads(l) for l in f if l.strip()]
    summary = {}
    p = os.path.join(folder, "summary.json")
    if os.path.exists(p):
        with open(p) as f:
            summary = json.load(f)
    return runs, stats, summary


def cases_in_order(runs):
    out = []
    for r in runs:
        if r["case"] not in out:
            out.append(r["case"])
    return out


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def short(n):
    if n is None:
        return "?"
    for unit, div in (("M", 1e6), ("k", 1e3)):
        if n >= div:
            return f"{n / div:.3g}{unit}"
    return str(n)


def fig7(runs, summary, out):
    all_cases = cases_in_order(runs)
    best = summary.get("stock_best", {})
    # cases where no run converged have nothing to draw: named in a footnote instead
    cases = [c for c in all_cases if any(r["case"] == c and r["status"] == "ok" for r in runs)]
    dropped = [c for c in all_cases if c not in cases]
    if not cases:
        fig, ax = plt.subplots(figsize=(8, 2))
        ax.axis("off")
        ax.text(0.5, 0.5, "no run converged: nothing to draw\n" + ", ".join(dropped), ha="center",
                va="center", wrap=True)
        fig.savefig(out, dpi=110)
        plt.close(fig)
        return
    ncols = min(4, len(cases))
    nrows = math.ceil(len(cases) / ncols)
    width_in = max(8.0, 3.6 * ncols + 0.4)
    height_in = 3.0 * nrows + 1.3 + (0.3 if dropped else 0)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width_in, height_in), squeeze=False)
    any_share = False
    for ax, case in zip(axes.flat, cases):
        rs = [r for r in runs if r["case"] == case]
        ref = (best.get(case) or {}).get("total")
        ref_txt = f"stock best {ref:.3g} s" if ref else None
        if not ref:  # no stock configuration converged: the fastest converged mode is the unit
            ok = [r for r in rs if r["status"] == "ok" and r["result"]]
            fastest = min(ok, key=lambda r: r["result"]["total_s"])
            ref = fastest["result"]["total_s"]
            ref_txt = f"no stock ref.; unit: {fastest['mode_label']} {ref:.3g} s"
        res0 = next((r["result"] for r in rs if r["result"]), None) or {}
        labels, x = [], np.arange(len(rs))
        top = 0.0
        for i, r in enumerate(rs):
            labels.append(r["mode_label"].replace("stock-vendor", "vendor"))
            res = r["result"] or {}
            if r["status"] != "ok":
                ax.text(i, 0.02, FAIL_SHORT.get(r["status"], r["status"]),
                        rotation=90, ha="center", va="bottom", fontsize=8, color="#c00000")
                continue
            s, v = res["setup_s"] / ref, res["solve_s"] / ref
            ax.bar(i, s, color=SETUP_COLOR, width=0.7)
            ax.bar(i, v, bottom=s, color=SOLVE_COLOR, width=0.7)
            st = r.get("stats") or {}
            g, m = st.get("spgemm_share_setup"), st.get("spmv_share_solve")
            if g is not None:
                any_share = True
                ax.bar(i, s * min(g, 1.0), color="none", edgecolor="black", hatch="////", width=0.7, lw=0)
            if m is not None:
                any_share = True
                ax.bar(i, v * min(m, 1.0), bottom=s, color="none", edgecolor="black", hatch="....", width=0.7, lw=0)
            ax.text(i, s + v, f"{res['total_s']:.3g}s", ha="center", va="bottom", fontsize=7)
            top = max(top, s + v)
        ax.axhline(1.0, color="black", ls="--", lw=0.8)
        ax.set_xlim(-0.6, len(rs) - 0.4)
        ax.set_xticks(x)
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        ax.set_ylim(0, max(1.15, top * 1.15))
        ax.set_title(f"{case}\n{short(res0.get('rows'))} rows, {short(res0.get('nnz'))} nnz; {ref_txt}", fontsize=9)
        ax.tick_params(axis="y", labelsize=8)
    for ax in list(axes.flat)[len(cases):]:
        ax.axis("off")
    for row in axes:
        row[0].set_ylabel("time / stock best total", fontsize=9)
    from matplotlib.patches import Patch
    handles = [Patch(color=SETUP_COLOR, label="setup"), Patch(color=SOLVE_COLOR, label="solve")]
    if any_share:
        handles += [Patch(facecolor="white", edgecolor="black", hatch="////", label="SpGEMM share of setup (plugin)"),
                    Patch(facecolor="white", edgecolor="black", hatch="....", label="SpMV share of solve (plugin)")]
    r0 = runs[0]
    fig.suptitle(f"Setup and solve time per mode, normalised to the stock best total (np {r0['np']}, "
                 f"median of {r0['repeat'] or 1} run(s))\nhatched: plugin SpGEMM/SpMV share, from one "
                 "AMGT_STATS=1 run per case and mode (rank 0)", fontsize=10, y=1 - 0.05 / height_in)
    fig.legend(handles=handles, loc="upper center", ncol=2 if width_in < 12 else len(handles), fontsize=8.5,
               frameon=False, bbox_to_anchor=(0.5, 1 - 0.48 / height_in))
    if dropped:
        fig.text(0.01, 0.005, "not shown, no mode converged: " + ", ".join(dropped), fontsize=8,
                 ha="left", va="bottom", wrap=True)
    fig.tight_layout()
    fig.subplots_adjust(top=1 - 1.45 / height_in, hspace=0.62 if nrows > 1 else None,
                        bottom=(0.75 if dropped else 0.45) / height_in)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def fig8(case, entries, runs, out):
    """Per-level mean ms per call, SpGEMM and SpMV, plugin modes of one case."""
    entries = [e for e in entries if e.get("table") and e["table"]["levels"]]
    if not entries:
        return False
    levels = sorted({l["level"] for e in entries for l in e["table"]["levels"]
                     if l["spgemm_calls"] or l["spmv_calls"]}, key=lambda v: (v < 0, v))
    rows_of = {}
    for e in entries:
        for l in e["table"]["levels"]:
            if l["rows"] is not None:
                rows_of.setdefault(l["level"], l["rows"])
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.8 / len(entries)
    for k, (ax, what) in enumerate(zip(axes, ("spgemm", "spmv"))):
        ymax = 0
        for j, e in enumerate(entries):
            by = {l["level"]: l for l in e["table"]["levels"]}
            xs, ys, calls, precs = [], [], [], []
            for i, lev in enumerate(levels):
                l = by.get(lev)
                if not l or l[f"{what}_calls"] == 0:
                    continue
                xs.append(i - 0.4 + width * (j + 0.5))
                ys.append(l[f"{what}_ms"] / l[f"{what}_calls"])
                calls.append(l[f"{what}_calls"])
                precs.append(l["prec"])
            color = MODE_COLORS.get(e["mode"], None)
            ax.bar(xs, ys, width=width * 0.95, color=color, label=e["mode"])
            for xx, yy, c, pr in zip(xs, ys, calls, precs):
                ax.text(xx, yy * 1.08, f"{c}\n{pr}", ha="center", va="bottom", fontsize=6.5)
            ymax = max([ymax] + ys)
        ax.set_yscale("log")
        if ymax > 0:
            lo = min((l[f"{what}_ms"] / l[f"{what}_calls"]) for e in entries for l in e["table"]["levels"]
                     if l[f"{what}_calls"] > 0)
            ax.set_ylim(lo / 3, ymax * 8)
        ax.set_xticks(range(len(levels)))
        ax.set_xticklabels([("other" if lev < 0 else f"L{lev}") + (f"\n{short(rows_of[lev])} rows" if lev in rows_of else "")
                            for lev in levels], fontsize=8)
        ax.set_ylabel("mean time per call [ms]", fontsize=9)
        ax.set_title(("SpGEMM (setup)" if what == "spgemm" else "SpMV (solve and setup)")
                     + ": per-level mean per call; labels: calls, precision", fontsize=9)
        ax.legend(fontsize=8)
    np_ = entries[0].get("np", 1)
    fig.suptitle(f"{case}: plugin SpGEMM/SpMV per level (AMGT_STATS per-level aggregates of one setup+solve, "
                 f"rank 0 of {np_}; not a per-call trace)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def read_trace(path):
    """AMGT_TRACE CSV -> list of (call, kind, level, precision, seconds)."""
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("call,") or line.startswith("#"):
                continue
            p = line.strip().split(",")
            if len(p) >= 5:
                rows.append((int(p[0]), p[1], int(p[2]), p[3], float(p[4])))
    return rows


def fig8_trace(case, entries, folder, out):
    """Like the paper's Fig. 8: the time of every plugin SpGEMM/SpMV call in call order, one
    panel per plugin mode, from the AMGT_TRACE of the case's statistics run (rank 0)."""
    traced = []
    for e in entries:
        t = e.get("trace")
        if t and os.path.exists(os.path.join(folder, t)):
            rows = read_trace(os.path.join(folder, t))
            if rows:
                traced.append((e["mode"], rows))
    if not traced:
        return False
    fig, axes = plt.subplots(len(traced), 1, figsize=(11, 2.6 * len(traced) + 0.6), squeeze=False)
    levels = sorted({r[2] for _, rows in traced for r in rows})
    cmap = plt.get_cmap("viridis", max(2, len(levels)))
    for ax, (mode, rows) in zip(axes[:, 0], traced):
        for kind, marker, size in (("spgemm", "^", 28), ("spmv", "o", 6)):
            for li, lev in enumerate(levels):
                pts = [(r[0], r[4] * 1e3) for r in rows if r[1] == kind and r[2] == lev]
                if pts:
                    ax.scatter([p[0] for p in pts], [max(p[1], 1e-6) for p in pts], s=size,
                               marker=marker, color=cmap(li),
                               label=f"{kind} L{lev}" if lev >= 0 else f"{kind} other")
        ax.set_yscale("log")
        ax.set_ylabel("ms per call", fontsize=9)
        ax.set_title(f"{mode}: {sum(r[1] == 'spgemm' for r in rows)} SpGEMM, "
                     f"{sum(r[1] == 'spmv' for r in rows)} SpMV calls", fontsize=9)
        # beside the panel, not on it: inside, any corner covers calls of some level
        ax.legend(fontsize=6.5, ncol=2 if len(levels) > 5 else 1, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False)
    axes[-1, 0].set_xlabel("call number (setup, then solve)", fontsize=9)
    fig.suptitle(f"{case}: time of every plugin SpGEMM/SpMV call in order (AMGT_TRACE, rank 0; "
                 f"GPU times include a synchronisation per call)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110, bbox_inches="tight")  # the legends lie outside the axes
    plt.close(fig)
    return True


def fig_speedup(runs, summary, out):
    modes = summary.get("modes") or {}
    if not modes:
        return False
    # CPU builds run the plugin's reference kernels: a ratio, not a speedup of AMGT
    gpu = summary.get("gpu_build", True)
    word = "speedup" if gpu else "time ratio"
    names = list(modes)
    phases = ("setup", "solve", "total")
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(names) + 2), 4.2))
    width = 0.26
    colors = {"setup": SETUP_COLOR, "solve": SOLVE_COLOR, "total": "#55a868"}
    vals_all, labels = [], []
    for k, ph in enumerate(phases):
        xs = np.arange(len(names)) + (k - 1) * width
        g = [modes[m][ph] or np.nan for m in names]
        ax.bar(xs, g, width=width * 0.95, color=colors[ph], label=f"{ph} (geomean)")
        labels.append((xs, g))
        vals_all += [v for v in g if np.isfinite(v)]
        for j, m in enumerate(names):
            pts = [r[f"speedup_{ph}"] for r in runs if r["mode"] == m and r.get(f"speedup_{ph}")]
            vals_all += pts
            jitter = (np.arange(len(pts)) % 5 - 2) * width * 0.08
            ax.scatter(xs[j] + jitter, pts, s=8, color="black", zorder=3, alpha=0.55, lw=0)
    ax.axhline(1.0, color="black", ls="--", lw=0.8)
    ax.set_yscale("log")
    lo = min(vals_all) / 2.2 if vals_all else 0.1
    if vals_all:
        ax.set_ylim(lo, max(vals_all) * 1.8)
    for xs, g in labels:  # geomean values at the foot of the bars, clear of the dots
        for x, v in zip(xs, g):
            if np.isfinite(v):
                ax.text(x, lo * 1.12, f"{v:.2f}", ha="center", va="bottom", fontsize=7.5,
                        color="white", fontweight="bold")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([f"{modes[m]['label']}\n({plural(modes[m]['cases'], 'case')})" for m in names],
                       fontsize=8)
    ax.set_ylabel(f"{word} vs stock best (log)", fontsize=9)
    ax.set_title("stock best time / mode time (>1: faster); dots: single cases"
                 + ("" if gpu else "\nCPU build: the plugin's reference kernels, which exist to exercise "
                    "the hooks, not to be fast: not speedups of AMGT"), fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def fig_steps(case, runs, out):
    """--steps: per-step time (setup + solve solid, setup dashed) and iterations per mode."""
    rs = [r for r in runs if r["case"] == case and (r.get("result") or {}).get("step_setup_s")]
    if not rs:
        return False
    fig, (ax_t, ax_i) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    for i, r in enumerate(rs):
        res = r["result"]
        setup = np.array(res["step_setup_s"], dtype=float) * 1e3
        solve = np.array(res["step_solve_s"], dtype=float) * 1e3
        called = res.get("step_setup_called") or [1] * len(setup)
        k = np.arange(len(setup))
        color = MODE_COLORS.get(r["mode"], plt.cm.tab10(i % 10))
        label = r["mode_label"] + ("" if r["status"] == "ok" else f" ({FAIL_SHORT.get(r['status'], r['status'])})")
        ax_t.plot(k, setup + solve, "-o", color=color, ms=3.5, lw=1.5, label=label)
        su = np.where(np.array(called, dtype=bool), setup, np.nan)
        ax_t.plot(k, su, "--", color=color, lw=1.0)
        ax_i.plot(k, res.get("step_iterations") or [np.nan] * len(k), "-o", color=color, ms=3.5, lw=1.5, label=label)
    res0 = rs[0]["result"]
    ax_t.set_ylabel("setup + solve per step [ms]\n(dashed: setup)", fontsize=9)
    ax_t.set_ylim(bottom=0)
    ax_t.set_title(f"{case}: {res0.get('steps')} steps, drift {res0.get('drift')} "
                   f"({res0.get('device', '?')} build, np {res0.get('np', 1)})", fontsize=10)
    ax_t.legend(fontsize=8, ncol=2)
    ax_i.set_ylabel("iterations", fontsize=9)
    ax_i.set_xlabel("step", fontsize=9)
    ax_i.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax_i.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) == 2 else 1
    folder = argv[1]
    runs, stats, summary = load(folder)
    if not runs:
        print(f"plot.py: no runs in {folder}", file=sys.stderr)
        return 1
    figdir = os.path.join(folder, "figures")
    os.makedirs(figdir, exist_ok=True)
    made = []
    fig7(runs, summary, os.path.join(figdir, "fig7_breakdown.png"))
    made.append("fig7_breakdown.png")
    for case in cases_in_order(runs):
        name = "fig8_levels_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", case) + ".png"
        if fig8(case, [e for e in stats if e["case"] == case], runs, os.path.join(figdir, name)):
            made.append(name)
        name = "fig8_calls_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", case) + ".png"
        if fig8_trace(case, [e for e in stats if e["case"] == case], folder, os.path.join(figdir, name)):
            made.append(name)
    for case in cases_in_order(runs):
        name = "fig_steps_" + re.sub(r"[^A-Za-z0-9_.-]+", "_", case) + ".png"
        if fig_steps(case, runs, os.path.join(figdir, name)):
            made.append(name)
    if fig_speedup(runs, summary, os.path.join(figdir, "fig_speedup.png")):
        made.append("fig_speedup.png")
    print(f"figures: {figdir}/ ({', '.join(made)})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
