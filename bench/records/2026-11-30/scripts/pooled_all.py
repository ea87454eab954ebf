#!/usr/bin/env python3
"""The small cases' cold pairs of every batch with the probe pooled (records 2026-11-29j-l
unpinned, 2026-11-30 pinned), adjusted for probe_api_s: verdicts at 90% and 95% (Student's t),
the lowest case-modes, each mode's geomean, and each mode's mean log ratio of the probe.

  python3 pooled_all.py BATCH.jsonl ..."""
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import cold_pairs  # noqa: E402

outs = [(p, cold_pairs.load(p)) for p in sys.argv[1:]]
for cov in (0.9, 0.95):
    rows, d = cold_pairs.adjusted(outs, "probe_api_s", interval="t", coverage=cov)
    v = [r["verdict"] for r in rows]
    print(f"coverage {cov}: slope {d['slope']:.3f}, correlation {d['correlation']:.3f}, {d['pairs']} pairs; "
          f"above {v.count('above')}, open {v.count('open')}, below {v.count('below')} of {len(v)}")
    if cov == 0.95:
        for r in sorted(rows, key=lambda r: r["geomean"])[:12]:
            print(f"  {r['case']:<16} {r['mode_label']:<6} {r['pairs']:3d} {r['geomean']:.3f} "
                  f"{r['low']:.3f}-{r['high']:.3f} {r['verdict']}")
        for m in ("fp64", "auto", "mixed"):
            g = [math.log(r["geomean"]) for r in rows if r["mode_label"] == m]
            n = [r["pairs"] for r in rows if r["mode_label"] == m]
            print(f"  {m}: geomean {math.exp(statistics.fmean(g)):.3f}, pairs {min(n)}-{max(n)}, "
                  f"probe's mean log ratio {d['modes'][m]['mean_x']:+.4f} (s.e. {d['modes'][m]['se']:.4f})")
