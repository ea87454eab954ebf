#!/usr/bin/env python3
"""The preload's first-use list (hypre_glue/first_use_kernels.inc): the kernels a cold process's
BoomerAMG setup and first solve launch, in the order of their first launch, from kprof traces
(../shared/tools/kprof: one TSV a process, kernel records "K<TAB>name<TAB>start<TAB>end<TAB>bytes").

    first_use_kernels.py TRACE.tsv [TRACE.tsv ...] > hypre_glue/first_use_kernels.inc

bench/first_use_trace.sh BUILD OUT makes the traces on a GPU machine (one setup and one solve a
process, AMGT_PRELOAD=0 so that only the application's launches show). Each trace gives its
distinct kernel names in the order of their first start; the list merges them by the earliest
relative place a name takes in any trace (its first-launch rank / the trace's distinct names),
ties by the order of the traces, so a kernel every small setup launches early stays early and
the kernels of larger hierarchies (more levels, more products) follow where they begin.
"""
import re
import sys

NAME = re.compile(r"^[A-Za-z0-9_.$]+$")  # a mangled name: nothing a C string must escape


def first_launches(path):
    """The distinct kernel names of one trace, by first start time."""
    first = {}
    with open(path) as f:
        for line in f:
            p = line.rstrip("\n").split("\t")
            if len(p) < 4 or p[0] != "K":
                continue
            try:
                t = int(p[2])
            except ValueError:
                continue
            if p[1] not in first or t < first[p[1]]:
                first[p[1]] = t
    return [n for n, _ in sorted(first.items(), key=lambda kv: (kv[1], kv[0]))]


def merged(traces):
    """Names by their earliest relative place in any trace; ties by trace, then by rank."""
    key = {}
    for ti, names in enumerate(traces):
        for rank, n in enumerate(names):
            k = (rank / len(names), ti, rank)
            if n not in key or k < key[n]:
                key[n] = k
    return sorted(key, key=lambda n: key[n])


def main(args):
    if not args or any(a in ("-h", "--help") for a in args):
        print(__doc__.strip())
        return 0 if args else 2
    traces = []
    for path in args:
        try:
            names = first_launches(path)
        except OSError as e:
            print(f"first_use_kernels: {e}", file=sys.stderr)
            return 1
        if not names:
            print(f"first_use_kernels: {path}: no kernel records (a kprof TSV has lines K<TAB>name<TAB>start...)",
                  file=sys.stderr)
            return 1
        bad = [n for n in names if not NAME.match(n)]
        if bad:
            print(f"first_use_kernels: {path}: not a mangled name: {bad[0]!r}", file=sys.stderr)
            return 1
        traces.append(names)
    out = merged(traces)
    print("// The preload's first-use list (hypre_glue/kernel_images.h, first_use_kernels): the kernels a")
    print("// cold process's BoomerAMG setup and first solve launch, by their device names, in the order")
    print("// of their first launch, merged over the traces of bench/first_use_trace.sh (one H200). Made by")
    print("//")
    print("//   bench/first_use_trace.sh build-gpu traces")
    print("//   python3 bench/first_use_kernels.py traces/*.tsv > hypre_glue/first_use_kernels.inc")
    print("//")
    print(f"// {len(out)} names from {len(traces)} traces ({', '.join(str(len(t)) for t in traces)} a trace).")
    for n in out:
        print(f'"{n}",')
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
