#!/usr/bin/env python3
"""The cold totals of several run.sh outputs (`--rounds R`, each output's runs.jsonl) paired
round by round and pooled: per case and plugin mode, stock's cold total (first setup + solve of
a process) over the mode's for the two processes of each round of each output, then the median
of all those ratios, an interval holding the true median with >= 90% probability (order
statistics) and the verdict against 0.95x, as run.sh's table *Cold, round by round* gives them
for one output. A device call holds a few rounds of the small cases; the pairs of several calls
together narrow the interval about as 1/sqrt(pairs).

  python3 bench/cold_pairs.py OUT1/runs.jsonl OUT2/runs.jsonl ... [--cases A,B] [--json FILE]
                              [--reference MODE]

--reference MODE: a plugin mode of the same runs instead of stock (fp64 against fp64-skl: which
of two settings a cold process prefers); the verdict is then against 1.0, and the other plugin
modes are paired with it.

Pool only outputs of one build on one kind of machine: the ratios of different code are not
one quantity (the tool does not know which build wrote a file)."""
import argparse
import json
import os
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
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def bound_for(reference):
    """The verdicts' bound: 0.95x against stock (bench_report.COLD_BOUND), 1.0 between two
    plugin settings."""
    return bench_report.COLD_BOUND if reference == "stock" else 1.0


def pooled(outputs, cases=None, reference="stock", coverage=bench_report.COLD_COVERAGE):
    """outputs: [(path, records)]. Returns (the rows of cold_verdict with case, mode, mode_label,
    and files: the pairs each output gave), the outputs' pairs per (case, mode) pooled in the
    order they first appear; against reference (stock, or a plugin mode: then the other plugin
    modes, against 1.0); the intervals of `coverage`."""
    ratios, labels, per_file = {}, {}, {}
    bound = bound_for(reference)
    paired = (lambda r: is_plugin(r) and r["mode"] != reference)
    for path, records in outputs:
        for (case, mode), (label, rs) in bench_report.paired_cold_ratios(records, paired, reference).items():
            if cases and case not in cases:
                continue
            ratios.setdefault((case, mode), []).extend(rs)
            labels[(case, mode)] = label
            per_file.setdefault((case, mode), []).append(len(rs))
    return [dict(case=c, mode=m, mode_label=labels[(c, m)], files=per_file[(c, m)],
                 **bench_report.cold_verdict(rs, bound, coverage))
            for (c, m), rs in ratios.items()]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="runs.jsonl of run.sh outputs made with --rounds R")
    ap.add_argument("--cases", help="only these cases (comma-separated labels)")
    ap.add_argument("--json", help="also write the rows as JSON here")
    ap.add_argument("--reference", default="stock", help="the mode the others are paired with (default stock)")
    a = ap.parse_args(argv)
    outputs = []
    for path in a.runs:
        try:
            records = load(path)
        except (OSError, ValueError) as e:
            raise SystemExit(f"cold_pairs: cannot read {path}: {e}")
        if not any(r.get("processes") for r in records):
            raise SystemExit(f"cold_pairs: {path} has no processes paired by round (run.sh --rounds R, R >= 2)")
        outputs.append((path, records))
    rows = pooled(outputs, set(a.cases.split(",")) if a.cases else None, a.reference)
    if not rows:
        raise SystemExit(f"cold_pairs: no case holds {a.reference} and a plugin mode with a cold total")
    for path, records in outputs:
        rounds = max((r.get("rounds") or 0) for r in records)
        print(f"{path}: {len(records)} case-mode records, {rounds} rounds")
    for line in bench_report.cold_pairs_lines(rows, a.reference, bound_for(a.reference)):
        print(line)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
