#!/usr/bin/env python3
# Is a Student-t interval on the adjusted cold pairs' log ratios calibrated? The pairs of the
# batches with the driver's probes (record 2026-11-29j call 3, record 2026-11-29k call 2), adjusted
# for probe_api_s as bench/cold_pairs.py --covariate does; each case-mode's adjusted log ratios
# about their mean (scaled by sqrt(n / (n - 1))) pooled; then draws of n of them with replacement
# (true centre 0): how often the t interval and the median's order-statistics interval hold 0,
# and their mean widths (in log units).
#   python3 t_calibration.py BATCH.jsonl ...   (run from the repository root)
import math
import os
import random
import statistics
import sys

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bench_report  # noqa: E402
import cold_pairs  # noqa: E402

outputs = [(f, cold_pairs.load(f)) for f in sys.argv[1:]]
rows, diag = cold_pairs.adjusted(outputs, "probe_api_s")
b = diag["slope"]
paired = (lambda r: cold_pairs.is_plugin(r) and r["mode"] != "stock")
groups = {}
for _, records in outputs:
    for k, (_, ps) in cold_pairs.covariate_pairs(records, "probe_api_s", paired).items():
        groups.setdefault(k, []).extend(ps)
res = []
for ps in groups.values():
    adj = [y - b * x for y, x in ps]
    m, n = statistics.fmean(adj), len(adj)
    res += [(a - m) * math.sqrt(n / (n - 1)) for a in adj]
print(f"slope {b:.4f}, {len(res)} residuals, sd {statistics.pstdev(res):.4f}")
random.seed(1)
for n in (11, 17, 25):
    for cov in (0.90, 0.95):
        q = bench_report.t_quantile(1 - (1 - cov) / 2, n - 1)
        hit_t = hit_m = 0
        wt, wm = [], []
        draws = 20000
        for _ in range(draws):
            s = [random.choice(res) for _ in range(n)]
            h = q * statistics.stdev(s) / math.sqrt(n)
            m = statistics.fmean(s)
            hit_t += m - h <= 0 <= m + h
            wt.append(2 * h)
            _, lo, hi = bench_report.median_interval(s, cov)
            if lo is not None:
                hit_m += lo <= 0 <= hi
                wm.append(hi - lo)
        print(f"n {n} coverage {cov}: t holds 0 in {hit_t / draws:.3f}, width {statistics.fmean(wt):.3f}; "
              f"median {hit_m / draws:.3f}, width {statistics.fmean(wm):.3f}")
