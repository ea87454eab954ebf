#!/usr/bin/env python3
"""The 21 small cases' cold pairs after AMGT_SETUP_KERNELS=large's rule for a small
application's hierarchy: the cases the rule changed (those whose hierarchy held a block of the
plugin's size, call 4's affected.txt) from the batches measured with the rule (calls 4, 5), the
other cases from every batch (records 2026-11-29j, k, 2026-11-30 and call 2: their processes
ran the same code before and after the rule), adjusted for probe_api_s, Student's t at 90% and
95%, the lowest case-modes, each mode's geomean, and the spread between case-modes.

  python3 pooled_rule.py AFFECTED.txt --old OLD.jsonl ... --new NEW.jsonl ..."""
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import cold_pairs  # noqa: E402

args = sys.argv[1:]
affected = set(open(args[0]).read().split())
old = args[args.index("--old") + 1:args.index("--new")]
new = args[args.index("--new") + 1:]
outs = [(p, [r for r in cold_pairs.load(p) if r["case"] not in affected]) for p in old]
outs += [(p, [r for r in cold_pairs.load(p) if r["case"] in affected]) for p in new]
print(f"affected: {' '.join(sorted(affected))}; {len(old)} earlier outputs, {len(new)} with the rule")
for cov in (0.9, 0.95):
    values = {}
    rows, d = cold_pairs.adjusted(outs, "probe_api_s", interval="t", coverage=cov, values=values)
    v = [r["verdict"] for r in rows]
    print(f"coverage {cov}: slope {d['slope']:.3f}, correlation {d['correlation']:.3f}, {d['pairs']} pairs; "
          f"above {v.count('above')}, open {v.count('open')}, below {v.count('below')} of {len(v)}")
    if cov == 0.95:
        for r in sorted(rows, key=lambda r: r["geomean"])[:10]:
            print(f"  {r['case']:<16} {r['mode_label']:<6} {r['pairs']:3d} {r['geomean']:.3f} "
                  f"{r['low']:.3f}-{r['high']:.3f} {r['verdict']}")
        for m in ("fp64", "auto", "mixed"):
            g = [math.log(r["geomean"]) for r in rows if r["mode_label"] == m]
            n = [r["pairs"] for r in rows if r["mode_label"] == m]
            print(f"  {m}: geomean {math.exp(statistics.fmean(g)):.3f}, pairs {min(n)}-{max(n)}")
        print("\n".join(cold_pairs.heterogeneity_lines(values, cov)))
