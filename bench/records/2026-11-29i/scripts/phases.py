#!/usr/bin/env python3
"""The tables of record 2026-11-29i from the calls' runs.jsonl: per case and mode the medians
over its processes of the assembly, the first setup and the first solve (ms), and the medians of
the round-paired ratios (the first mode's time / the mode's) on the assembly + first setup +
solve and on the first setup + solve alone.

  python3 bench/records/2026-11-29i/scripts/phases.py stock,fp64,fp64-np,fp64-pp call1/c/*.jsonl
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "scripts"))
import bench_report  # noqa: E402


def main(modes, paths):
    by = {}
    nnz = {}
    for i, path in enumerate(paths):
        with open(path) as f:
            recs = bench_report.with_processes([json.loads(l) for l in f if l.strip()])
        for r in recs:
            if r.get("result"):
                nnz[r["case"]] = r["result"].get("nnz")
            for p in r.get("processes") or []:
                if p["status"] == "ok" and p.get("assemble_s") and p.get("cold_total_s"):
                    by.setdefault(r["case"], {}).setdefault(r["mode"], {})[(i, p["round"])] = p
    print("case            entries  " + "".join(f"{m:>26s}" for m in modes))
    print("  (per mode: assembly / first setup / first solve, ms, medians; below: paired ratios"
          f" {modes[0]} / mode, assembled | first setup + solve)")
    for case, m in by.items():
        row = f"{case:15s} {nnz.get(case) or 0:8d}  "
        for mode in modes:
            ps = list(m.get(mode, {}).values())
            if not ps:
                row += " " * 26
                continue
            med = lambda k: statistics.median(p[k] for p in ps if p.get(k) is not None) * 1e3
            row += f"   {med('assemble_s'):6.1f}/{med('cold_setup_s'):5.1f}/{med('cold_solve_s'):5.1f} n{len(ps)}"
        print(row)
        row = " " * 26 + " " * 26
        for mode in modes[1:]:
            ra, rc = [], []
            for k, p in m.get(mode, {}).items():
                s = m.get(modes[0], {}).get(k)
                if s:
                    ra.append((s["assemble_s"] + s["cold_total_s"]) / (p["assemble_s"] + p["cold_total_s"]))
                    rc.append(s["cold_total_s"] / p["cold_total_s"])
            row += f"      {statistics.median(ra):5.3f} | {statistics.median(rc):5.3f}   " if ra else " " * 26
        print(row)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    sys.exit(main(sys.argv[1].split(","), sys.argv[2:]))
