#!/usr/bin/env python3
"""A pair's spread in the small cases' cold rounds, processes pinned to four cores (taskset,
record 2026-11-30) against unpinned (records 2026-11-29j-l): per pool, the standard deviation
of the pairs' log ratios about their case-mode's mean (raw and adjusted for probe_api_s, the
pooled slope), and the quantiles of probe_api_s over the processes (is its two-speed shape
still there?).

  python3 pinned_spread.py --pinned A.jsonl ... --unpinned B.jsonl ..."""
import argparse
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import cold_pairs  # noqa: E402


def spread(paths):
    outputs = [(p, cold_pairs.load(p)) for p in paths]
    rows, diag = cold_pairs.adjusted(outputs, "probe_api_s", interval="t")
    groups = {}
    for _, records in outputs:
        paired = (lambda r: cold_pairs.is_plugin(r) and r["mode"] != "stock")
        for k, (_, ps) in cold_pairs.covariate_pairs(records, "probe_api_s", paired).items():
            groups.setdefault(k, []).extend(ps)
    raw, adj = [], []
    for ps in groups.values():
        if len(ps) < 2:
            continue
        my = statistics.fmean(y for y, _ in ps)
        mx = statistics.fmean(x for _, x in ps)
        raw.extend(y - my for y, _ in ps)
        adj.extend((y - my) - diag["slope"] * (x - mx) for y, x in ps)
    dof = len(raw) - len([g for g in groups.values() if len(g) >= 2])
    sd = lambda d: math.sqrt(sum(v * v for v in d) / dof)
    probes = sorted(p["probe_api_s"] for _, records in outputs for r in records for p in r.get("processes", [])
                    if p.get("status") == "ok" and p.get("probe_api_s"))
    q = lambda f: probes[min(len(probes) - 1, int(f * len(probes)))] * 1e3
    above = sum(r["verdict"] == "above" for r in rows)
    below = sum(r["verdict"] == "below" for r in rows)
    return dict(batches=len(paths), pairs=len(raw), case_modes=len(groups), sd_raw=sd(raw), sd_adj=sd(adj),
                slope=diag["slope"], corr=diag["correlation"], processes=len(probes),
                probe_ms=[q(f) for f in (0.05, 0.25, 0.5, 0.75, 0.95)], above=above, below=below)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pinned", nargs="+", required=True)
    ap.add_argument("--unpinned", nargs="+", required=True)
    a = ap.parse_args()
    print("| pool | batches | pairs | case-modes | sd of a pair's log ratio, raw | adjusted | slope | correlation | processes | probe_api_s ms: 5 / 25 / 50 / 75 / 95% | above / below 0.95 (t, 90%) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for name, paths in (("unpinned", a.unpinned), ("pinned", a.pinned)):
        s = spread(paths)
        print(f"| {name} | {s['batches']} | {s['pairs']} | {s['case_modes']} | {s['sd_raw']:.3f} | {s['sd_adj']:.3f} | "
              f"{s['slope']:.3f} | {s['corr']:.3f} | {s['processes']} | "
              f"{' / '.join(f'{v:.3f}' for v in s['probe_ms'])} | {s['above']} / {s['below']} |")


if __name__ == "__main__":
    main()
