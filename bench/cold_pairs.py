#!/usr/bin/env python3
"""The cold totals of several run.sh outputs (`--rounds R`, each output's runs.jsonl) paired
round by round and pooled: per case and plugin mode, stock's cold total (first setup + solve of
a process) over the mode's for the two processes of each round of each output, then the median
of all those ratios, an interval holding the true median with >= 90% probability (order
statistics) and the verdict against 0.95x, as run.sh's table *Cold, round by round* gives them
for one output. A device call holds a few rounds of the small cases; the pairs of several calls
together narrow the interval about as 1/sqrt(pairs).

  python3 bench/cold_pairs.py OUT1/runs.jsonl OUT2/runs.jsonl ... [--cases A,B] [--json FILE]
                              [--reference MODE] [--covariate KEY] [--measure cold|assembled|process]
                              [--interval median|t] [--heterogeneity]

--reference MODE: a plugin mode of the same runs instead of stock (fp64 against fp64-skl: which
of two settings a cold process prefers); the verdict is then against 1.0, and the other plugin
modes are paired with it.

--covariate KEY: the pairs adjusted for a time each process spends before its first run
(KEY: input_s, init_s, assemble_s, or the driver's host-speed probes probe_cpu_s and probe_api_s,
timed before HYPRE_Initialize; run.sh --rounds keeps them per process): a process's speed
moves its cold total (bench/RESULTS.md, records 2026-11-29g and j), and where KEY follows that speed
the adjustment takes it out of each pair. Per pair, y = log(reference's cold total / mode's) and
x = log(reference's KEY / mode's); the slope b of y on x within each case-mode, pooled over all
of them; each ratio becomes exp(y - b x), then the median, interval and verdict as above. Valid
only where KEY does not depend on the mode (the mean of x about 0): the command prints each
mode's mean x with its standard error and the pooled correlation of x and y, and says so when
a mean lies more than two standard errors from 0. The interval does not count b's own error
(small with hundreds of pairs).

--measure cold|assembled|process: what a pair compares. cold (default): the first setup and
solve of a process, as above. assembled: the matrix's assembly too (assemble_s + the cold total:
from the first IJ call to the end of the first solve), process: HYPRE_Initialize as well (init_s +
assemble_s + the cold total). The plugin's preload (AMGT_PRELOAD) loads kernels on a second
thread while the application assembles its matrix, so what it saves in the first setup may be
paid in the assembly; the wider measures count both (bench/RESULTS.md, record 2026-11-29h).
A covariate that the measure contains is refused.

--interval median|t: what decides. median (default): the pairs' median and an interval holding it
with >= 90% probability whatever their spread (order statistics). t: the pairs' geometric mean
(the mean of their logs) and Student's t interval of 90% for it, valid where the log ratios
spread near a normal law: the command prints their pooled skewness and excess kurtosis (each
case-mode's about its own mean). Resampled from the 673 adjusted pairs of record 2026-11-29k
(skewness -0.08, excess kurtosis +0.49) the t interval held the true mean in 90% / 95% of the
draws at 90% / 95% and was 13-37% narrower than the median's at 11-25 pairs (bench/RESULTS.md,
*Small and mid-size systems*): the median needs 1.3-2.5x the pairs for the same width.

--heterogeneity: whether the case-modes' true ratios differ beyond what their pairs' spread
explains (bench_report.heterogeneity, as a meta-analysis asks it of studies: Cochran's Q on
their mean log ratios and standard errors, the spread tau of their true log ratios and its upper
bound), per mode and over all, with the adjusted pairs under --covariate, and the ratio the
lowest case-mode's true ratio stays above (the common ratio's lower bound less z * tau's upper
bound, z Bonferroni's over the case-modes). Where many case-modes stay open at a bound near 1.0
this says whether they differ at all: on the small cases' 1832 adjusted pairs of records
2026-11-29j to 2026-11-30 Q was 75.5 on 62 degrees of freedom and tau 0.010 (bench/RESULTS.md,
*Small and mid-size systems*).

Pool only outputs of one build on one kind of machine: the ratios of different code are not
one quantity (the tool does not know which build wrote a file)."""
import argparse
import functools
import json
import math
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import bench_report  # noqa: E402
import bench_runner  # noqa: E402


def is_plugin(record):
    """A plugin mode (not one of stock's configurations): run.sh's mode table, else AMGT's value."""
    mode = bench_runner.MODES.get(record["mode"])
    return not mode["stock"] if mode else record.get("amgt", "off") != "off"


def load(path):
    """A runs.jsonl, its processes grouped by case and mode where the run was cut short
    (bench_report.with_processes)."""
    with open(path) as f:
        return bench_report.with_processes([json.loads(line) for line in f if line.strip()])


def bound_for(reference):
    """The verdicts' bound: 0.95x against stock (bench_report.COLD_BOUND), 1.0 between two
    plugin settings."""
    return bench_report.COLD_BOUND if reference == "stock" else 1.0


MEASURES = bench_report.COLD_MEASURES


def measure_keys(measure):
    if measure not in MEASURES:
        raise ValueError(f"--measure takes one of {', '.join(MEASURES)}, not {measure!r}")
    return MEASURES[measure][1]


def pooled(outputs, cases=None, reference="stock", coverage=bench_report.COLD_COVERAGE, measure="cold",
           interval="median", shape=None, values=None):
    """outputs: [(path, records)]. Returns (the rows of cold_verdict with case, mode, mode_label,
    and files: the pairs each output gave), the outputs' pairs per (case, mode) pooled in the
    order they first appear; against reference (stock, or a plugin mode: then the other plugin
    modes, against 1.0); the intervals of `coverage` and kind `interval` (cold_verdict's); the
    pairs' time: MEASURES[measure]. shape: a dict to receive log_shape of the pairs (values,
    skewness, kurtosis). values: a dict to receive each case-mode's ratios ({(case, mode_label):
    [ratio]})."""
    ratios, labels, per_file = {}, {}, {}
    bound = bound_for(reference)
    paired = (lambda r: is_plugin(r) and r["mode"] != reference)
    measure_keys(measure)
    pair = functools.partial(bench_report.cold_ratio, measure=measure)
    for path, records in outputs:
        for (case, mode), (label, rs) in bench_report.paired_cold_ratios(records, paired, reference, pair).items():
            if cases and case not in cases:
                continue
            ratios.setdefault((case, mode), []).extend(rs)
            labels[(case, mode)] = label
            per_file.setdefault((case, mode), []).append(len(rs))
    if shape is not None:
        shape.update(zip(("values", "skewness", "kurtosis"), bench_report.log_shape(ratios.values())))
    if values is not None:
        values.update({(c, labels[(c, m)]): rs for (c, m), rs in ratios.items()})
    return [dict(case=c, mode=m, mode_label=labels[(c, m)], files=per_file[(c, m)],
                 **bench_report.cold_verdict(rs, bound, coverage, interval))
            for (c, m), rs in ratios.items()]


COVARIATES = ("input_s", "init_s", "assemble_s", "probe_cpu_s", "probe_api_s")


def covariate_pairs(records, key, paired, reference="stock", measure="cold"):
    """{(case, mode): (mode_label, [(y, x)])} of one output: per round, y = log of the
    reference's time (MEASURES[measure]) over the mode's, x = log of the reference's `key` over
    the mode's (both processes of the round with both values)."""
    def pair(ref, proc):
        vals = (bench_report.cold_seconds(ref, measure), bench_report.cold_seconds(proc, measure),
                ref.get(key), proc.get(key))
        if not all(v is not None and v > 0 for v in vals):
            return None
        return math.log(vals[0] / vals[1]), math.log(vals[2] / vals[3])
    return bench_report.paired_cold_ratios(records, paired, reference, pair)


def adjusted(outputs, key, cases=None, reference="stock", coverage=bench_report.COLD_COVERAGE, measure="cold",
             interval="median", shape=None, values=None):
    """The pairs of `outputs` adjusted for `key` (the module's --covariate). Returns (rows as
    pooled's, with the adjusted ratios, and a dict: slope, correlation, pairs, and per mode
    (label) the mean x, its standard error and its pairs); interval, shape and values (the
    adjusted ratios) as pooled's."""
    if key not in COVARIATES:
        raise ValueError(f"--covariate takes one of {', '.join(COVARIATES)}, not {key!r}")
    if key in measure_keys(measure):
        raise ValueError(f"--covariate {key} is part of --measure {measure}: adjusting a time for itself")
    bound = bound_for(reference)
    paired = (lambda r: is_plugin(r) and r["mode"] != reference)
    groups, labels, per_file = {}, {}, {}
    for _, records in outputs:
        for (case, mode), (label, ps) in covariate_pairs(records, key, paired, reference, measure).items():
            if cases and case not in cases:
                continue
            groups.setdefault((case, mode), []).extend(ps)
            labels[(case, mode)] = label
            per_file.setdefault((case, mode), []).append(len(ps))
    sxy = sxx = syy = 0.0
    for ps in groups.values():
        if len(ps) < 2:
            continue
        mx = statistics.fmean(x for _, x in ps)
        my = statistics.fmean(y for y, _ in ps)
        sxy += sum((x - mx) * (y - my) for y, x in ps)
        sxx += sum((x - mx) ** 2 for _, x in ps)
        syy += sum((y - my) ** 2 for y, _ in ps)
    slope = sxy / sxx if sxx > 0 else 0.0
    corr = sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None
    shift = {}
    for (case, mode), ps in groups.items():
        shift.setdefault(labels[(case, mode)], []).extend(x for _, x in ps)
    modes = {}
    for label, xs in shift.items():
        se = statistics.stdev(xs) / math.sqrt(len(xs)) if len(xs) > 1 else None
        modes[label] = {"mean_x": statistics.fmean(xs), "se": se, "pairs": len(xs)}
    ratios = {k: [math.exp(y - slope * x) for y, x in ps] for k, ps in groups.items()}
    if shape is not None:
        shape.update(zip(("values", "skewness", "kurtosis"), bench_report.log_shape(ratios.values())))
    if values is not None:
        values.update({(c, labels[(c, m)]): rs for (c, m), rs in ratios.items()})
    rows = [dict(case=c, mode=m, mode_label=labels[(c, m)], files=per_file[(c, m)],
                 **bench_report.cold_verdict(ratios[(c, m)], bound, coverage, interval))
            for (c, m) in groups]
    return rows, {"covariate": key, "slope": slope, "correlation": corr, "measure": measure,
                  "pairs": sum(len(ps) for ps in groups.values()), "modes": modes}


def covariate_lines(diag):
    """What the adjustment rests on, for the table's head."""
    corr = "-" if diag["correlation"] is None else f"{diag['correlation']:.3f}"
    what = MEASURES[diag.get("measure", "cold")][0]
    lines = [f"\nAdjusted for {diag['covariate']} ({diag['pairs']} pairs): slope {diag['slope']:.3f}, "
             f"correlation of the pairs' log ratios of {diag['covariate']} and of the {what} {corr} "
             f"(within case-modes)"]
    for label, m in diag["modes"].items():
        se = "-" if m["se"] is None else f"{m['se']:.4f}"
        moved = m["se"] is not None and abs(m["mean_x"]) > 2 * m["se"]
        lines.append(f"  {label:13} mean log ratio of {diag['covariate']} {m['mean_x']:+.4f} (standard error {se}, "
                     f"{m['pairs']} pairs)" + ("  <- depends on the mode: the adjustment is not valid here"
                                              if moved else ""))
    return lines


def shape_line(shape):
    """What a Student-t interval rests on (--interval t), for the table's head."""
    if shape.get("skewness") is None:
        return f"\nThe log ratios about their case-mode's mean: {shape.get('values', 0)} values, too few for their shape"
    return (f"\nThe log ratios about their case-mode's mean ({shape['values']} values): skewness "
            f"{shape['skewness']:+.2f}, excess kurtosis {shape['kurtosis']:+.2f} (a Student-t interval "
            f"wants both near 0)")


def heterogeneity_lines(values, coverage=0.95):
    """--heterogeneity: per mode and over all case-modes, whether their true ratios differ
    beyond their pairs' spread (bench_report.heterogeneity on `values`, {(case, mode_label):
    [ratio]}), and how low the lowest of them may lie."""
    by_mode = {}
    for (_, label), rs in values.items():
        by_mode.setdefault(label, []).append(rs)
    lines = [f"\nBetween case-modes (each one's mean log ratio against its standard error; random effects, "
             f"{coverage:.0%}): the common ratio, Cochran's Q, the spread tau of the true log ratios and "
             f"its upper bound, the ratio the lowest case-mode stays above (with tau's bound; with tau)"]
    for label, groups in list(by_mode.items()) + [("all", [g for gs in by_mode.values() for g in gs])]:
        h = bench_report.heterogeneity(groups, coverage)
        if h is None:
            lines.append(f"  {label:13} fewer than two case-modes with a spread")
            continue
        lines.append(f"  {label:13} {h['groups']:3} case-modes: ratio {h['ratio']:.3f} (>= {h['ratio_low']:.3f}), "
                     f"Q {h['q']:.1f} on {h['df']} (p {h['p']:.2f}), tau {h['tau']:.4f} (<= {h['tau_high']:.4f}); "
                     f"lowest >= {h['lowest']:.3f} ({h['lowest_at_tau']:.3f})")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="runs.jsonl of run.sh outputs made with --rounds R")
    ap.add_argument("--cases", help="only these cases (comma-separated labels)")
    ap.add_argument("--json", help="also write the rows as JSON here")
    ap.add_argument("--reference", default="stock", help="the mode the others are paired with (default stock)")
    ap.add_argument("--covariate", choices=COVARIATES,
                    help="adjust the pairs for this per-process time (see the module's text)")
    ap.add_argument("--measure", choices=tuple(MEASURES), default="cold",
                    help="the time a pair compares (default cold: first setup + solve; see the module's text)")
    ap.add_argument("--interval", choices=bench_report.COLD_INTERVALS, default="median",
                    help="median (order statistics, default) or t (geometric mean, Student's t; see the module's text)")
    ap.add_argument("--heterogeneity", action="store_true",
                    help="also whether the case-modes' true ratios differ beyond chance (see the module's text)")
    a = ap.parse_args(argv)
    if a.covariate and a.covariate in measure_keys(a.measure):
        raise SystemExit(f"cold_pairs: --covariate {a.covariate} is part of --measure {a.measure}")
    what = MEASURES[a.measure][0]
    outputs = []
    for path in a.runs:
        try:
            records = load(path)
        except (OSError, ValueError) as e:
            raise SystemExit(f"cold_pairs: cannot read {path}: {e}")
        if not any(r.get("processes") for r in records):
            raise SystemExit(f"cold_pairs: {path} has no processes paired by round (run.sh --rounds R, R >= 2)")
        outputs.append((path, records))
    cases = set(a.cases.split(",")) if a.cases else None
    shape, values = {}, {}
    rows = pooled(outputs, cases, a.reference, measure=a.measure, interval=a.interval, shape=shape, values=values)
    if not rows:
        raise SystemExit(f"cold_pairs: no case holds {a.reference} and a plugin mode with a {what}"
                         + ("" if a.measure == "cold" else " (outputs of an older amgt-solve?)"))
    for path, records in outputs:
        rounds = max((r.get("rounds") or 0) for r in records)
        print(f"{path}: {len(records)} case-mode records, {rounds} rounds")
    if a.interval == "t":
        print(shape_line(shape))
    for line in bench_report.cold_pairs_lines(rows, a.reference, bound_for(a.reference), what=what,
                                              interval=a.interval):
        print(line)
    if a.heterogeneity and not a.covariate:
        for line in heterogeneity_lines(values):
            print(line)
    if a.covariate:
        shape, values = {}, {}
        rows, diag = adjusted(outputs, a.covariate, cases, a.reference, measure=a.measure, interval=a.interval,
                              shape=shape, values=values)
        if not rows:
            raise SystemExit(f"cold_pairs: no process holds {a.covariate} (outputs of an older amgt-solve?)")
        for line in covariate_lines(diag) + ([shape_line(shape)] if a.interval == "t" else []) + \
                bench_report.cold_pairs_lines(rows, a.reference, bound_for(a.reference), what=what,
                                              interval=a.interval) + \
                (heterogeneity_lines(values) if a.heterogeneity else []):
            print(line)
        rows = {"covariate": diag, "rows": rows}
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
