#!/usr/bin/env python3
"""The three cases that held the small suite's open case-modes (aniso7 n=31, fv2, laplace27
n=22), cold, with this record's build: calls 3 and 4 pooled (one build, one machine; call 3 a
pool decided at 95%, call 4 a second one decided at 99%, so that early stops on few pairs do not
decide), adjusted for probe_api_s, Student's t at 90% and 95%, each mode's geomean and the spread
between case-modes.

  python3 pooled_final.py RUNS.jsonl ..."""
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import cold_pairs  # noqa: E402

outs = [(p, cold_pairs.load(p)) for p in sys.argv[1:]]
print(f"{len(outs)} outputs")
for cov in (0.9, 0.95):
    values = {}
    rows, d = cold_pairs.adjusted(outs, "probe_api_s", interval="t", coverage=cov, values=values)
    v = [r["verdict"] for r in rows]
    print(f"coverage {cov}: slope {d['slope']:.3f}, correlation {d['correlation']:.3f}, {d['pairs']} pairs; "
          f"above {v.count('above')}, open {v.count('open')}, below {v.count('below')} of {len(v)}")
    for r in sorted(rows, key=lambda r: (r["case"], r["mode_label"])):
        print(f"  {r['case']:<16} {r['mode_label']:<6} {r['pairs']:3d} {r['geomean']:.3f} "
              f"{r['low']:.3f}-{r['high']:.3f} {r['verdict']}")
    if cov == 0.95:
        for m in ("fp64", "auto", "mixed"):
            g = [math.log(r["geomean"]) for r in rows if r["mode_label"] == m]
            print(f"  {m}: geomean {math.exp(statistics.fmean(g)):.3f}")
        print("\n".join(cold_pairs.heterogeneity_lines(values, cov)))
