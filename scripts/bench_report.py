"""What a benchmark loop of scripts/bench_runner.py writes once its runs are done: the flat
row of a run (runs.csv), runs.jsonl, summary.json and the summary tables of summary.txt."""

import csv
import functools
import json
import math
import os
import statistics

# the reference of the "vs hypre's default configuration" columns
DEFAULT_REF = "stock-default"
CSV_FIELDS = [
    "case", "set", "mode", "mode_label", "amgt", "vendor", "pool", "np", "repeat", "solves",
    "status", "exit_code", "rows", "nnz", "levels", "iterations", "rel_residual", "converged",
    "setup_s", "solve_s", "solves_total_s", "total_s", "cold_setup_s", "cold_solve_s",
    "cold_total_s", "setup_all", "solve_all", "operator_complexity", "device", "speedup_setup",
    "speedup_solve", "speedup_total", "speedup_default_setup", "speedup_default_solve",
    "speedup_default_total", "cold_ratio_setup", "cold_ratio_solve", "stats_status",
    "stats_setup_s", "stats_solve_s", "spgemm_calls", "spgemm_ms", "spmv_calls", "spmv_ms",
    "spgemm_share_setup", "spmv_share_solve", "fallbacks", "wall_s", "log", "args", "error",
    # --steps (empty otherwise)
    "steps", "drift", "frozen", "setup_calls", "first_setup_s", "resetup_median_s", "steps_setup_total_s",
    "steps_solve_total_s", "iterations_per_step_median", "step_setup_s", "step_solve_s", "step_iterations"]
# --steps: the driver's per-step results
STEP_SCALARS = ("steps", "drift", "frozen", "setup_calls", "first_setup_s", "resetup_median_s",
                "steps_setup_total_s", "steps_solve_total_s", "iterations_per_step_median")
STEP_LISTS = ("step_setup_s", "step_solve_s", "step_iterations")
# phases of the speedups: warm medians (setup, solve per solve, total) and the cold first run
PHASES = ("setup", "solve", "total")
COLD_PHASES = ("setup", "solve")


# CPU builds: said at the top of the summary (and in short at its geomean table).
CPU_NOTE_LINES = [
    "CPU build: the plugin's kernels here are its CPU reference implementations, which exist to",
    "exercise the hooks inside hypre and to check the GPU kernels against, not to be fast. The",
    "ratios below compare them with hypre's optimised CPU code: they are not speedups of AMGT",
    "(a GPU build measures those).",
]
CPU_NOTE = " ".join(CPU_NOTE_LINES)


# --rounds: the cold totals paired round by round, against this bound (the first setup and solve
# of a process in a plugin mode at >= 0.95x stock's), with intervals of this coverage
COLD_BOUND = 0.95
COLD_COVERAGE = 0.9


def median_interval(values, coverage=COLD_COVERAGE):
    """(median, low, high) of `values`: low..high holds the true median with probability >=
    coverage whatever the distribution (order statistics: the k-th smallest and k-th largest with
    P(Binomial(n, 1/2) < k) <= (1 - coverage) / 2, k as large as that allows). low and high are
    None when no k >= 1 does (too few values: n < 5 at 90%)."""
    v = sorted(values)
    n = len(v)
    if n == 0:
        return None, None, None
    med = statistics.median(v)
    tail = (1.0 - coverage) / 2
    k, below = 0, 0.0  # below: P(Binomial(n, 1/2) <= k - 1)
    while k < n // 2:
        nxt = below + math.comb(n, k) / 2 ** n
        if nxt > tail:
            break
        below, k = nxt, k + 1
    if k == 0:
        return med, None, None
    return med, v[k - 1], v[n - k]


def _beta_fraction(a, b, x):
    """The continued fraction of the regularized incomplete beta function I_x(a, b) (modified
    Lentz), for x < (a + 1) / (a + b + 2), where it converges quickly."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def incomplete_beta(a, b, x):
    """The regularized incomplete beta function I_x(a, b), 0 <= x <= 1, a, b > 0."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def solve_increasing(f, target, hi):
    """The x >= 0 at which an increasing f reaches target (f(0) <= target): hi doubled until
    f(hi) >= target, then bisection to a relative 1e-12."""
    lo = 0.0
    while f(hi) < target:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if f(mid) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * hi:
            break
    return 0.5 * (lo + hi)


@functools.lru_cache(maxsize=None)
def t_quantile(p, df):
    """Student's t distribution's p-quantile (0.5 <= p < 1) with df >= 1 degrees of freedom:
    bisection on its distribution function, 1 - I_{df / (df + t^2)}(df / 2, 1 / 2) / 2."""
    if not 0.5 <= p < 1.0 or df < 1:
        raise ValueError(f"t_quantile wants 0.5 <= p < 1 and df >= 1, not p={p}, df={df}")
    if p == 0.5:
        return 0.0
    return solve_increasing(lambda t: 1.0 - 0.5 * incomplete_beta(df / 2.0, 0.5, df / (df + t * t)), p, 1.0)


def incomplete_gamma_upper(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a), a > 0,
    x >= 0: its series below x = a + 1, its continued fraction (modified Lentz) above."""
    if x <= 0.0:
        return 1.0
    front = math.exp(-x + a * math.log(x) - math.lgamma(a))
    if x < a + 1.0:
        term = total = 1.0 / a
        n = 1
        while abs(term) > 1e-16 * abs(total) and n < 10000:
            term *= x / (a + n)
            total += term
            n += 1
        return max(0.0, 1.0 - front * total)
    tiny = 1e-300
    b = x + 1.0 - a
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return front * h


def chi2_sf(x, df):
    """P(X > x) for X chi-squared with df > 0 degrees of freedom."""
    return incomplete_gamma_upper(df / 2.0, x / 2.0)


@functools.lru_cache(maxsize=None)
def chi2_quantile(p, df):
    """The chi-squared distribution's p-quantile (0 < p < 1), df > 0: bisection on chi2_sf."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError(f"chi2_quantile wants 0 < p < 1 and df > 0, not p={p}, df={df}")
    return solve_increasing(lambda x: 1.0 - chi2_sf(x, df), p, max(1.0, 2.0 * df))


def group_logs(groups):
    """The logs of the ratios of each group (a list of positive ratios) of two or more."""
    return [[math.log(v) for v in g] for g in groups if len(g) >= 2]


def heterogeneity(groups, coverage=0.95):
    """Whether the true ratios of several groups (lists of positive ratios, e.g. a case-mode's
    cold pairs) differ beyond what their pairs' spread explains, as a meta-analysis asks it of
    studies: each group's mean log m_i and its standard error s_i (sd / sqrt(n), groups of >= 2
    values with a spread), then Cochran's Q = sum (m_i - m)^2 / s_i^2 about the weighted mean m,
    its p-value on k - 1 degrees of freedom, the spread tau of the groups' true log ratios
    (DerSimonian-Laird: max(0, (Q - (k - 1)) / (S1 - S2 / S1)), S1, S2 the sums of the weights and
    of their squares) and tau's upper bound at `coverage` (Q-profile: the tau^2 at which the
    generalised Q, weights 1 / (s_i^2 + tau^2), falls to the chi-squared (1 - coverage) / 2
    quantile; 0 where Q is below that quantile at tau = 0). Returns None with fewer than two such
    groups, else {groups, ratio (exp of the random-effects mean), ratio_low (of its interval at
    coverage), q, df, p, tau, tau_high, lowest, lowest_at_tau}: lowest, the ratio the lowest of
    the k groups' true ratios stays above with about `coverage` (ratio_low divided by
    exp(z tau_high), z the normal quantile at 1 - (1 - coverage) / k: a bound for each group,
    Bonferroni over the k), lowest_at_tau the same at tau's estimate. Normal laws throughout: meaningful where the log ratios' shape is near one
    (log_shape)."""
    stats = [(statistics.fmean(logs), statistics.stdev(logs) / math.sqrt(len(logs)))
             for logs in group_logs(groups)]
    stats = [(m, se) for m, se in stats if se > 0.0]
    k = len(stats)
    if k < 2:
        return None

    def generalised(t2):
        w = [1.0 / (se * se + t2) for _, se in stats]
        mean = sum(wi * m for wi, (m, _) in zip(w, stats)) / sum(w)
        return sum(wi * (m - mean) ** 2 for wi, (m, _) in zip(w, stats)), mean, math.sqrt(1.0 / sum(w))

    q, _, _ = generalised(0.0)
    w = [1.0 / (se * se) for _, se in stats]
    s1, s2 = sum(w), sum(x * x for x in w)
    tau2 = max(0.0, (q - (k - 1)) / (s1 - s2 / s1))
    floor = chi2_quantile((1.0 - coverage) / 2.0, k - 1)
    hi2 = 0.0
    if q > floor:  # the generalised Q falls as tau^2 grows
        hi2 = solve_increasing(lambda t2: -generalised(t2)[0], -floor, max(tau2, max(se * se for _, se in stats)))
    _, mean, se_mean = generalised(tau2)
    z_mean = statistics.NormalDist().inv_cdf(1.0 - (1.0 - coverage) / 2.0)
    z_low = statistics.NormalDist().inv_cdf(1.0 - (1.0 - coverage) / k)
    low = mean - z_mean * se_mean
    return {"groups": k, "ratio": math.exp(mean), "ratio_low": math.exp(low), "q": q, "df": k - 1,
            "p": chi2_sf(q, k - 1), "tau": math.sqrt(tau2), "tau_high": math.sqrt(hi2),
            "lowest": math.exp(low - z_low * math.sqrt(hi2)), "lowest_at_tau": math.exp(low - z_low * math.sqrt(tau2))}


# the fewest pairs a Student-t interval is formed from (fewer: no interval, the verdict open)
T_FEWEST = 5


def mean_interval(values, coverage=COLD_COVERAGE):
    """(geometric mean, low, high) of positive `values` (ratios): exp of the mean of their logs
    and of Student's t interval of `coverage` for it (mean -+ t * sd / sqrt(n), n - 1 degrees of
    freedom). Valid where the logs' spread is near a normal one (skewness and excess kurtosis
    near 0: log_shape); narrower than median_interval's order statistics at the same coverage.
    low and high are None with fewer than T_FEWEST values."""
    logs = [math.log(v) for v in values]
    n = len(logs)
    if n == 0:
        return None, None, None
    m = statistics.fmean(logs)
    if n < T_FEWEST:
        return math.exp(m), None, None
    h = t_quantile(1.0 - (1.0 - coverage) / 2, n - 1) * statistics.stdev(logs) / math.sqrt(n)
    return math.exp(m), math.exp(m - h), math.exp(m + h)


def log_shape(groups):
    """(values, skewness, excess kurtosis) of the logs of the ratios of `groups` (lists of positive
    ratios, e.g. a list per case and mode), each group's about its own mean; None for the two
    moments without 3 values and a spread."""
    dev = []
    for logs in group_logs(groups):
        m = statistics.fmean(logs)
        dev.extend(x - m for x in logs)
    n = len(dev)
    var = sum(x * x for x in dev) / n if n else 0.0
    if n < 3 or var <= 0.0:
        return n, None, None
    skew = sum(x ** 3 for x in dev) / n / var ** 1.5
    kurt = sum(x ** 4 for x in dev) / n / var ** 2 - 3.0
    return n, skew, kurt


COLD_INTERVALS = ("median", "t")


# What a cold pair compares (bench/cold_pairs.py --measure): its name in the tables, and the
# per-process times (run.sh --rounds keeps them) summed: the first setup and solve, with the
# matrix's assembly, or everything from HYPRE_Initialize on.
COLD_MEASURES = {
    "cold": ("cold total (first setup + solve)", ("cold_total_s",)),
    "assembled": ("assembly + first setup + solve", ("assemble_s", "cold_total_s")),
    "process": ("HYPRE_Initialize to the first solve's end", ("init_s", "assemble_s", "cold_total_s")),
}


def cold_seconds(proc, measure="cold"):
    """A process's time under `measure` (COLD_MEASURES: the sum of its keys), None where one is
    missing or not positive; ValueError for an unknown measure."""
    if measure not in COLD_MEASURES:
        raise ValueError(f"a cold measure is one of {', '.join(COLD_MEASURES)}, not {measure!r}")
    vals = [proc.get(k) for k in COLD_MEASURES[measure][1]]
    if not all(v is not None and v > 0 for v in vals):
        return None
    return sum(vals)


def cold_ratio(ref, proc, measure="cold"):
    """The reference process's time (cold_seconds) over the mode's process's, None without both."""
    a, b = cold_seconds(ref, measure), cold_seconds(proc, measure)
    return None if a is None or b is None else a / b


# what a pooled record (run.sh --rounds) keeps of each of its processes: the phases it pools
# and what the process did before its first run (the driver's input_s, init_s, assemble_s, and
# its host-speed probes probe_cpu_s, probe_api_s: a process's speed apart from the mode's work)
PROCESS_KEYS = ("setup_s", "solve_s", "solves_total_s", "cold_setup_s", "cold_solve_s", "cold_total_s",
                "total_s", "input_s", "init_s", "assemble_s", "probe_cpu_s", "probe_api_s")


def process_entry(r):
    """One process's record of runs.jsonl as a pooled record lists it among its processes."""
    return {"round": r.get("round"), "status": r["status"], "log": r.get("log"),
            **{k: (r.get("result") or {}).get(k) for k in PROCESS_KEYS}}


def with_processes(records):
    """runs.jsonl of a run.sh --rounds run cut short (a device call's limit) holds one record per
    process, not yet pooled: those of each case and mode become one record with their
    processes, as pooled records have them (the first record's fields, `processes` in its
    rounds' order). Records that have processes already, or no round, are kept as they are."""
    out, groups = [], {}
    for r in records:
        if r.get("processes") or r.get("round") is None:
            out.append(r)
            continue
        key = (r["case"], r["mode"])
        if key not in groups:
            groups[key] = dict(r, processes=[])
            out.append(groups[key])
        groups[key]["processes"].append(process_entry(r))
        groups[key]["rounds"] = len(groups[key]["processes"])
    return out


def paired_cold_ratios(records, is_plugin, reference="stock", pair=cold_ratio):
    """The cold totals of a run paired round by round: records as runs.jsonl holds them after
    --rounds (each with its processes and their rounds). Per case and plugin mode (is_plugin of
    its record), pair(the reference's process, the mode's) for the two processes of each round
    (default: the reference's cold total, first setup + solve, over the mode's; None leaves the
    round out); {(case, mode): (mode_label, [values])} in the records' order, cases without the
    reference left out."""
    by_case = {}
    for r in records:
        by_case.setdefault(r["case"], []).append(r)
    out = {}
    for case, rs in by_case.items():
        ref = next((r for r in rs if r["mode"] == reference), None)
        if not ref or not ref.get("processes"):
            continue
        ref_of = {p["round"]: p for p in ref["processes"] if p["status"] == "ok"}
        for r in rs:
            if not is_plugin(r) or not r.get("processes"):
                continue
            values = [pair(ref_of[p["round"]], p) for p in r["processes"]
                      if p["status"] == "ok" and p["round"] in ref_of]
            values = [v for v in values if v is not None]
            if values:
                out[(case, r["mode"])] = (r["mode_label"], values)
    return out


def cold_verdict(ratios, bound=COLD_BOUND, coverage=COLD_COVERAGE, interval="median"):
    """{pairs, median, low, high, verdict} of paired cold ratios: median_interval of `coverage`,
    and 'above' (the interval above bound, COLD_BOUND unless given), 'below' (under it) or
    'open'. interval "t": {pairs, geomean, low, high, verdict} with mean_interval's Student-t
    interval instead."""
    if interval not in COLD_INTERVALS:
        raise ValueError(f"an interval is one of {', '.join(COLD_INTERVALS)}, not {interval!r}")
    center, low, high = (mean_interval if interval == "t" else median_interval)(ratios, coverage)
    verdict = ("open" if low is None else "above" if low >= bound
               else "below" if high < bound else "open")
    return {"pairs": len(ratios), "geomean" if interval == "t" else "median": center, "low": low, "high": high,
            "verdict": verdict}


def cold_center(row):
    """A cold_verdict row's ratio: its median, or its geometric mean (interval "t")."""
    return row["median"] if "median" in row else row["geomean"]


def fewest_pairs(coverage=COLD_COVERAGE):
    """The fewest values median_interval gives an interval of `coverage` for."""
    n = 1
    while 0.5 ** n > (1.0 - coverage) / 2:
        n += 1
    return n


def cold_pairs_lines(pairs, reference="stock", bound=COLD_BOUND, coverage=COLD_COVERAGE,
                     what="cold total (first setup + solve)", interval="median"):
    """The table *Cold, round by round* of cold_verdict's rows (with case, mode_label); coverage
    and interval: the intervals' (as computed for the rows); what: the time the pairs compare."""
    if interval == "t":
        how = (f"geometric mean and Student's t interval of {coverage:.0%} for it (the log ratios' mean; "
               f"'-' with fewer than {T_FEWEST} pairs)")
    else:
        how = (f"median and an interval holding the true median with >= {coverage:.0%} probability "
               f"(order statistics; '-' with fewer than {fewest_pairs(coverage)} pairs)")
    lines = [f"\nCold, round by round: {reference}'s {what} / the mode's, the two processes "
             f"of each round paired; {how}; verdict against {bound}: above / below (the whole interval) or open",
             f"  {'case':24} {'mode':13} {'pairs':>5} {'geomean' if interval == 't' else 'median':>7} "
             f"{'interval':>13}  verdict"]
    for p in pairs:
        span = "-" if p["low"] is None else f"{p['low']:.3f}-{p['high']:.3f}"
        lines.append(f"  {p['case']:24} {p['mode_label']:13} {p['pairs']:>5} {cold_center(p):>7.3f} "
                     f"{span:>13}  {p['verdict']}")
    counts = {v: sum(p["verdict"] == v for p in pairs) for v in ("above", "open", "below")}
    lines.append("  " + ", ".join(f"{v}: {n}" for v, n in counts.items()) + f" of {len(pairs)}")
    return lines


def fmt(v, spec, none="-"):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return none
    return format(v, spec)


def ratio(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}x"


class Report:
    """Runner's outputs; a mixin of bench_runner.Runner, whose derive() sets what these read
    (self.best, self.dref, self.geo, self.by_case, self.scaling; self.a, self.records; MODES, the
    modes' table, a class attribute)."""

    def flat(self, r):
        res = r["result"] or {}
        st = r["stats"] or {}
        row = {k: r.get(k) for k in ("case", "set", "mode", "mode_label", "amgt", "vendor", "pool",
                                     "np", "repeat", "solves", "status", "exit_code", "wall_s", "log",
                                     "args", "error")}
        for k in ("rows", "nnz", "levels", "iterations", "rel_residual", "converged", "setup_s",
                  "solve_s", "solves_total_s", "total_s", "cold_setup_s", "cold_solve_s",
                  "cold_total_s", "operator_complexity", "device"):
            row[k] = res.get(k)
        for ph in PHASES:
            row[f"speedup_{ph}"] = r.get(f"speedup_{ph}")
            row[f"speedup_default_{ph}"] = r.get(f"speedup_default_{ph}")
        for ph in COLD_PHASES:
            row[f"cold_ratio_{ph}"] = r.get(f"cold_ratio_{ph}")
        row["setup_all"] = " ".join(str(x) for x in res.get("setup_all", []))
        row["solve_all"] = " ".join(str(x) for x in res.get("solve_all", []))
        for k in STEP_SCALARS:
            row[k] = res.get(k)
        for k in STEP_LISTS:
            row[k] = " ".join(str(x) for x in res[k]) if isinstance(res.get(k), list) else None
        row["stats_status"] = st.get("status")
        row["stats_setup_s"] = st.get("setup_s")
        row["stats_solve_s"] = st.get("solve_s")
        for k in ("spgemm_calls", "spgemm_ms", "spmv_calls", "spmv_ms", "spgemm_share_setup",
                  "spmv_share_solve", "fallbacks"):
            row[k] = st.get(k)
        return row

    def derive_scaling(self):
        """With several rank counts (--np 1,2): per case and mode, each count's times against the
        smallest count's that ran: parallel efficiency = (t_ref * np_ref) / (np * t) per phase
        (1: perfect strong scaling; np_ref/np: no faster than the reference)."""
        counts = getattr(self.a, "np_list", [self.a.np])
        if len(counts) < 2:
            return []
        groups = {}
        for r in self.records:
            groups.setdefault((r.get("base_case", r["case"]), r["mode"]), {})[r["np"]] = r
        rows = []
        for (case, mode), by_np in groups.items():
            ok = {n: r for n, r in by_np.items() if r["status"] == "ok" and r["result"]}
            if not ok:
                continue
            ref_np = min(ok)
            ref = ok[ref_np]["result"]
            for n in sorted(ok):
                if n == ref_np:
                    continue
                res = ok[n]["result"]
                row = {"case": case, "mode": mode, "mode_label": ok[n]["mode_label"], "np": n,
                       "ref_np": ref_np, "iterations": res.get("iterations"),
                       "ref_iterations": ref.get("iterations")}
                for ph in PHASES:
                    t, t0 = res.get(f"{ph}_s"), ref.get(f"{ph}_s")
                    row[f"{ph}_s"], row[f"ref_{ph}_s"] = t, t0
                    row[f"efficiency_{ph}"] = (t0 * ref_np) / (n * t) if (t and t0) else None
                rows.append(row)
        return rows

    def derive_steps(self):
        """--steps: per case and mode that ran a sequence, its per-step setup, solve and
        iterations, and ratios (mode / reference, < 1: less time or fewer iterations):
          resetup_vs_stock_setup  median re-setup (steps >= 1 that set up) / stock's median setup
          step_time_vs_stock      median over the steps of (setup + solve) / stock's of that step
          total_vs_stock          sum over the steps of setup + solve / stock's sum
          step_time_vs_frozen, total_vs_frozen  the same against stock-frozen
          iterations_vs_stock     iterations summed over the steps / stock's
        Only runs that converged (the re-setup ratio: any run that set up again); a reference
        that did not converge leaves its ratios None."""
        out = []
        for case, rs in self.by_case.items():
            seq = [r for r in rs if (r["result"] or {}).get("steps")]
            if not seq:
                continue
            ok = {r["mode"]: r["result"] for r in seq if r["status"] == "ok"}

            def per_step(res):
                return [a + b for a, b in zip(res["step_setup_s"], res["step_solve_s"])]

            def median(v):
                v = sorted(x for x in v if x is not None and math.isfinite(x))
                if not v:
                    return None
                m = len(v) // 2
                return v[m] if len(v) % 2 else 0.5 * (v[m - 1] + v[m])

            def vs(res, ref):
                if not ref or len(ref["step_setup_s"]) != len(res["step_setup_s"]):
                    return None, None
                mine, theirs = per_step(res), per_step(ref)
                step = median([a / b for a, b in zip(mine, theirs) if b > 0])
                total = sum(mine) / sum(theirs) if sum(theirs) > 0 else None
                return step, total

            stock, frozen = ok.get("stock"), ok.get("stock-frozen")
            stock_setup = median(stock["step_setup_s"]) if stock else None
            for r in seq:
                res = r["result"]
                row = {"case": case, "mode": r["mode"], "mode_label": r["mode_label"], "status": r["status"],
                       "steps": res.get("steps"), "drift": res.get("drift"), "frozen": res.get("frozen"),
                       "step_setup_s": res.get("step_setup_s"), "step_solve_s": res.get("step_solve_s"),
                       "step_iterations": res.get("step_iterations"),
                       "step_setup_called": res.get("step_setup_called"),
                       "first_setup_s": res.get("first_setup_s"), "resetup_median_s": res.get("resetup_median_s"),
                       "steps_setup_total_s": res.get("steps_setup_total_s"),
                       "steps_solve_total_s": res.get("steps_solve_total_s"),
                       "iterations_per_step_median": res.get("iterations_per_step_median")}
                good = r["status"] == "ok" and isinstance(res.get("step_setup_s"), list)
                rs_med = res.get("resetup_median_s")
                # a setup's time means the same whether the solves converged or not
                row["resetup_vs_stock_setup"] = (rs_med / stock_setup if rs_med is not None and stock_setup
                                                 else None)
                row["step_time_vs_stock"], row["total_vs_stock"] = vs(res, stock) if good else (None, None)
                row["step_time_vs_frozen"], row["total_vs_frozen"] = vs(res, frozen) if good else (None, None)
                its, ref_its = res.get("step_iterations") or [], (stock or {}).get("step_iterations") or []
                row["iterations_vs_stock"] = (sum(its) / sum(ref_its) if good and ref_its and sum(ref_its) > 0
                                              and len(its) == len(ref_its) else None)
                out.append(row)
        return out

    def steps_text(self):
        """--steps: per case, the per-step table (setup ms, solve ms, iterations per mode) and
        the ratios of derive_steps; [] when no run was a sequence."""
        rows = self.derive_steps()
        if not rows:
            return []
        lines = ["", "Sequences of steps (--steps): per step, setup ms / solve ms / iterations per mode "
                     "(setup '-': none called, the first hierarchy kept)"]
        by_case = {}
        for r in rows:
            by_case.setdefault(r["case"], []).append(r)
        for case, rs in by_case.items():
            drift = rs[0].get("drift")
            lines.append(f"\n{case}  ({rs[0].get('steps')} steps, drift {drift})")
            w = 22
            lines.append(f"  {'step':>4} " + " ".join(f"{r['mode_label'][:w]:>{w}}" for r in rs))
            lines.append(f"  {'':>4} " + " ".join(f"{'setup  solve   it':>{w}}" for _ in rs))
            n = max(len(r["step_setup_s"] or []) for r in rs)
            for k in range(n):
                cells = []
                for r in rs:
                    su, so, it = r["step_setup_s"] or [], r["step_solve_s"] or [], r["step_iterations"] or []
                    called = r.get("step_setup_called") or []
                    if k >= len(su):
                        cells.append(f"{'-':>{w}}")
                        continue
                    setup = "-" if (k < len(called) and not called[k]) else fmt(1e3 * su[k], ".1f")
                    cells.append(f"{setup:>7} {fmt(1e3 * so[k], '.1f'):>7} {fmt(it[k], 'd'):>4}".rjust(w))
                lines.append(f"  {k:>4} " + " ".join(cells))
            lines.append(f"  {'mode':13} {'status':13} {'setup ms':>9} {'re-setup':>9} {'re-setup/':>11} "
                         f"{'step time/':>10} {'total/':>7} {'step time/':>10} {'total/':>7} {'it/step':>7} "
                         f"{'its/':>6}")
            lines.append(f"  {'':13} {'':13} {'step 0':>9} {'median ms':>9} {'stock setup':>11} "
                         f"{'stock':>10} {'stock':>7} {'frozen':>10} {'frozen':>7} {'median':>7} {'stock':>6}")
            for r in rs:
                ms = (lambda v: fmt(None if v is None else 1e3 * v, ".1f"))
                lines.append(f"  {r['mode_label']:13} {r['status']:13} {ms(r['first_setup_s']):>9} "
                             f"{ms(r['resetup_median_s']):>9} {fmt(r['resetup_vs_stock_setup'], '.3f'):>11} "
                             f"{fmt(r['step_time_vs_stock'], '.3f'):>10} {fmt(r['total_vs_stock'], '.3f'):>7} "
                             f"{fmt(r['step_time_vs_frozen'], '.3f'):>10} {fmt(r['total_vs_frozen'], '.3f'):>7} "
                             f"{fmt(r['iterations_per_step_median'], 'g'):>7} {fmt(r['iterations_vs_stock'], '.3f'):>6}")
            # the library's own count of full setups and re-setups (AMGT_STATS run of the mode)
            for r in rs:
                for e in getattr(self, "stats", []) or []:
                    if e.get("case") != case or e.get("mode") != r["mode"] or not e.get("table"):
                        continue
                    for note in e["table"].get("notes", []):
                        if note.startswith("setups ("):
                            lines.append(f"  {r['mode_label']:13} AMGT_STATS run: {note}")
        lines.append("  ratios: mode / reference (< 1: less time or fewer iterations); re-setup/stock setup: the "
                     "median setup of steps >= 1 / stock's median setup; step time: median over the steps of "
                     "(setup + solve) / the reference's; total: the sums over the steps; its/stock: iterations "
                     "summed over the steps / stock's")
        return lines

    def cold_pairs(self, reference="stock"):
        """--rounds: per case and plugin mode, the ratios reference cold total / mode cold total
        of the two processes of each round (a round runs every case and mode once, so its
        processes ran minutes apart at most), their median and interval (median_interval), and
        the verdict against COLD_BOUND (cold_verdict). Cases without the reference mode are left
        out."""
        pairs = paired_cold_ratios(self.records, lambda r: not self.MODES[r["mode"]]["stock"], reference)
        return [dict(case=case, mode=mode, mode_label=label, **cold_verdict(ratios))
                for (case, mode), (label, ratios) in pairs.items()]

    def cold_pairs_text(self):
        pairs = self.cold_pairs() if getattr(self.a, "rounds", 1) > 1 else []
        return cold_pairs_lines(pairs) if pairs else []

    def write_outputs(self, notes):
        a = self.a
        self.derive()
        tmp = os.path.join(a.out, "runs.jsonl.tmp")
        with open(tmp, "w") as f:
            for r in self.records:
                f.write(json.dumps(r) + "\n")
        os.replace(tmp, os.path.join(a.out, "runs.jsonl"))
        with open(os.path.join(a.out, "runs.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, CSV_FIELDS)
            w.writeheader()
            for r in self.records:
                w.writerow({k: ("" if v is None else v) for k, v in self.flat(r).items()})
        text = self.summary_text(notes)
        with open(os.path.join(a.out, "summary.txt"), "w") as f:
            f.write(text)
        summary = {"reference": "stock best = per case and phase, the faster of the stock "
                                "configurations that converged; speedup = stock best / mode",
                   "default_reference": f"{DEFAULT_REF} = hypre's default configuration (no device "
                                        "pool, cuSPARSE kernels); speedup_default = its time / mode",
                   "gpu_build": bool(a.gpu_build),
                   "cpu_note": None if a.gpu_build else CPU_NOTE,
                   "solves": a.solves, "repeat": a.repeat, "rounds": getattr(a, "rounds", 1),
                   "notes": notes, "modes": self.geo,
                   "stock_best": {c: {ph: (b[ph][0] if b[ph] else None) for ph in b}
                                  for c, b in self.best.items()},
                   "stock_best_config": {c: {ph: (b[ph][1] if b[ph] else None) for ph in b}
                                         for c, b in self.best.items()},
                   "stock_default": self.dref,
                   "scaling": self.scaling,
                   "steps": self.derive_steps(),
                   "cold_pairs": self.cold_pairs() if getattr(a, "rounds", 1) > 1 else [],
                   "runs": len(self.records),
                   "failed_runs": sum(r["status"] != "ok" for r in self.records)}
        with open(os.path.join(a.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
        return text

    def summary_text(self, notes):
        gpu = bool(self.a.gpu_build)
        # CPU builds: the plugin's kernels are its reference loops; a ratio is not a speedup
        word = "speedup" if gpu else "time ratio"
        solves = self.a.solves
        has_default = any(r["mode"] == DEFAULT_REF for r in self.records)
        lines = []
        if not gpu:
            lines.append("")
            lines += [f"  {l}" for l in CPU_NOTE_LINES]
        # columns: (group, header, width, value of a record)
        cols = [("", "setup s", 8, lambda r, x: fmt(x.get("setup_s"), ".4f")),
                ("", "solve s", 8, lambda r, x: fmt(x.get("solve_s"), ".4f"))]
        if solves > 1:
            cols.append(("", f"{solves} solves", 9, lambda r, x: fmt(x.get("solves_total_s"), ".4f")))
        cols += [("", "total s", 8, lambda r, x: fmt(x.get("total_s"), ".4f")),
                 ("cold", "setup s", 8, lambda r, x: fmt(x.get("cold_setup_s"), ".4f")),
                 ("cold", "solve s", 8, lambda r, x: fmt(x.get("cold_solve_s"), ".4f"))]
        grp = "vs stock best"
        cols += [(grp, "setup", 6, lambda r, x: ratio(r["speedup_setup"])),
                 (grp, "solve", 6, lambda r, x: ratio(r["speedup_solve"])),
                 (grp, "total", 6, lambda r, x: ratio(r["speedup_total"]))]
        if has_default:
            grp = "vs hypre default"
            cols += [(grp, "setup", 6, lambda r, x: ratio(r["speedup_default_setup"])),
                     (grp, "solve", 6, lambda r, x: ratio(r["speedup_default_solve"])),
                     (grp, "total", 6, lambda r, x: ratio(r["speedup_default_total"]))]
        grp = "cold vs best"
        cols += [(grp, "setup", 6, lambda r, x: ratio(r["cold_ratio_setup"])),
                 (grp, "solve", 6, lambda r, x: ratio(r["cold_ratio_solve"]))]

        def share(r, key):
            v = (r["stats"] or {}).get(key)
            return fmt(None if v is None else 100 * v, ".0f")
        cols += [("", "SpGEMM%", 7, lambda r, x: share(r, "spgemm_share_setup")),
                 ("", "SpMV%", 6, lambda r, x: share(r, "spmv_share_solve"))]
        lead = f"  {'':13} {'':13} {'':>6} {'':>5} {'':>9}"

        def group_line():
            out, k = lead, 0
            while k < len(cols):
                g = cols[k][0]
                j = k
                while j < len(cols) and cols[j][0] == g:
                    j += 1
                span = sum(c[2] + 1 for c in cols[k:j])  # each column with the space before it
                out += (" " + g.center(span - 1, "-")) if g else " " * span
                k = j
            return out.rstrip()

        for case, rs in self.by_case.items():
            res = next((r["result"] for r in rs if r["result"]), {}) or {}
            desc = (f"{res.get('rows')} rows, {res.get('nnz')} nnz" if res else "no result")
            runs = f"median of {self.a.repeat} runs" if self.a.repeat > 1 else "one timed run"
            rounds = getattr(self.a, "rounds", 1)
            if rounds > 1:
                runs = f"median of {rounds} processes' " + (f"medians of {self.a.repeat} runs" if self.a.repeat > 1
                                                             else "timed runs")
            per = f", {solves} solves per setup" if solves > 1 else ""
            if res.get("steps"):
                per += f", {res.get('steps')} steps (drift {res.get('drift')}): setup s = the sum of the setups"
            lines.append(f"\n{case}  ({desc}, np {rs[0].get('np', self.a.np)}, {res.get('device', '?')}, {runs}{per})")
            lines.append(group_line())
            lines.append(f"  {'mode':13} {'status':13} {'levels':>6} {'iters':>5} {'rel.res':>9} "
                         + " ".join(f"{c[1]:>{c[2]}}" for c in cols))
            for r in rs:
                x = r["result"] or {}
                lines.append(
                    f"  {r['mode_label']:13} {r['status']:13} {fmt(x.get('levels'), 'd'):>6} "
                    f"{fmt(x.get('iterations'), 'd'):>5} {fmt(x.get('rel_residual'), '.2e'):>9} "
                    + " ".join(f"{c[3](r, x):>{c[2]}}" for c in cols))
            if rounds > 1:
                spreads = [f"{r['mode_label']} " + "/".join(fmt(None if r.get("spread", {}).get(k) is None
                                                                else 100 * r["spread"][k], ".0f") + "%"
                                                            for k in ("setup", "solve", "cold_setup"))
                           for r in rs]
                lines.append("  spread of the process medians, (max - min) / median, setup/solve/cold setup: "
                             + ", ".join(spreads))
            b = self.best[case]
            if b["total"]:
                lines.append(f"  stock best: setup {b['setup'][0]:.4f} s ({b['setup'][1]}), solve "
                             f"{b['solve'][0]:.4f} s ({b['solve'][1]}), total {b['total'][0]:.4f} s ({b['total'][1]})"
                             + (f"; cold setup {b['cold_setup'][0]:.4f} s ({b['cold_setup'][1]}), solve "
                                f"{b['cold_solve'][0]:.4f} s ({b['cold_solve'][1]})" if b.get("cold_setup")
                                and b.get("cold_solve") else ""))
            else:
                lines.append(f"  stock best: none (no stock configuration converged): no {word}s for this case")
            if has_default and not self.dref[case]["total"]:
                lines.append(f"  {DEFAULT_REF}: did not converge or did not run: no comparison with "
                             "hypre's default configuration for this case")
        lines.append(f"  vs stock best: {word} = stock best time / mode time (> 1: faster); vs hypre default: "
                     f"the same against {DEFAULT_REF}; cold: the first setup and solve of each process, "
                     "cold vs best: against stock best's cold")
        n_cases = len(self.by_case)
        lines.append("")
        if not gpu:
            lines.append("CPU build: ratios of the plugin's reference kernels (written to exercise the hooks, "
                         "not to be fast): not speedups of AMGT")
        lines.append(f"Geometric mean {word} vs stock best over {n_cases} case(s) "
                     f"(stock best time / mode time; > 1 = faster; failed runs left out"
                     + ("" if gpu else "; CPU reference kernels: not speedups of AMGT") + ")")
        lines.append(f"  {'mode':13} {'cases':>5} {'setup':>7} {'solve':>7} {'total':>7}   failed runs")
        for mode, g in self.geo.items():
            failed = ", ".join(g["failed"][:6]) + (f", ... ({len(g['failed'])})" if len(g["failed"]) > 6 else "")
            lines.append(f"  {g['label']:13} {g['cases']:>5} {ratio(g['setup'], 3):>7} "
                         f"{ratio(g['solve'], 3):>7} {ratio(g['total'], 3):>7}   "
                         f"{failed or '-'}")
        if has_default:
            lines.append(f"\nGeometric mean {word} vs hypre's default configuration ({DEFAULT_REF}: no device "
                         "pool, cuSPARSE kernels; its time / mode time)")
            lines.append(f"  {'mode':13} {'cases':>5} {'setup':>7} {'solve':>7} {'total':>7}")
            for mode, g in self.geo.items():
                lines.append(f"  {g['label']:13} {g['default_cases']:>5} {ratio(g['default_setup'], 3):>7} "
                             f"{ratio(g['default_solve'], 3):>7} {ratio(g['default_total'], 3):>7}")
        lines.append(f"\nCold: the first setup and solve of each process (the driver's warm-up run"
                     + (", or its only run with --repeat 0" if self.a.repeat == 0 else "")
                     + f"), geometric mean {word} vs stock best's cold")
        lines.append(f"  {'mode':13} {'cases':>5} {'setup':>7} {'solve':>7}")
        for mode, g in self.geo.items():
            lines.append(f"  {g['label']:13} {g['cold_cases']:>5} {ratio(g['cold_setup'], 3):>7} "
                         f"{ratio(g['cold_solve'], 3):>7}")
        lines += self.cold_pairs_text()
        scal = self.scaling
        if scal:
            lines.append("\nParallel efficiency against the smallest rank count that ran (t_ref * np_ref / "
                         "(np * t): 1 = np/np_ref times as fast, np_ref/np = no faster)")
            lines.append(f"  {'case':24} {'mode':13} {'np':>4} {'iters':>9} {'setup s':>15} {'solve s':>15} "
                         f"{'total s':>15} {'efficiency setup/solve/total':>29}")
            for s in scal:
                its = f"{fmt(s['ref_iterations'], 'd')}/{fmt(s['iterations'], 'd')}"
                times = " ".join(f"{fmt(s[f'ref_{ph}_s'], '.4f'):>7}/{fmt(s[f'{ph}_s'], '.4f'):<7}" for ph in PHASES)
                eff = " / ".join(fmt(s[f"efficiency_{ph}"], ".2f") for ph in PHASES)
                lines.append(f"  {s['case']:24} {s['mode_label']:13} {s['ref_np']:>1}->{s['np']:<2} {its:>9} "
                             f"{times} {eff:>29}")
        if solves > 1:
            lines.append(f"  with --solves {solves}: solve s = median per solve, '{solves} solves' = their sum "
                         f"(median over runs), total s = setup + {solves} solves")
        if self.a.stats:
            lines.append("  SpGEMM% / SpMV%: plugin SpGEMM time / setup and SpMV time / solve of a separate "
                         "AMGT_STATS=1 run with one solve (rank 0; stock runs have no plugin counters)")
        for n in notes:
            lines.append(f"  note: {n}")
        lines += self.steps_text()
        files = ["runs.jsonl", "runs.csv"] + (["processes.jsonl"] if getattr(self.a, "rounds", 1) > 1 else []) + \
            (["stats.jsonl", "stats/"] if self.a.stats else []) + \
            ["summary.txt", "summary.json", "logs/"] + (["figures/"] if self.a.plots else [])
        lines.append(f"\nresults: {self.a.out}/  ({', '.join(files)})")
        return "\n".join(lines) + "\n"
