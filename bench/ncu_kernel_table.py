#!/usr/bin/env python3
"""Per-kernel table of an Nsight Compute report: calls, time, DRAM bytes, bandwidth as a fraction
of the GPU's peak, and what bounds each kernel, from `ncu --csv --page raw` (one row a launch,
a column a metric, a row of units under the header) or the long `--csv` form (a row a metric:
"Metric Name", "Metric Unit", "Metric Value").

  python3 bench/ncu_kernel_table.py [--peak-tbs 3.0] [--top N] [--markdown] FILE.csv [...]

The metrics read (bench/setup_kernels_ncu.sh asks ncu for them):
  gpu__time_duration.sum                                   the launch's time
  dram__bytes_read.sum, dram__bytes_write.sum              its DRAM traffic
  sm__throughput.avg.pct_of_peak_sustained_elapsed         SM throughput, % of peak
  gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed   DRAM throughput, % of peak
Units are converted to bytes and seconds (ncu's SI prefixes: Kbyte = 1e3 bytes). Launches are
grouped by the kernel's function name (template arguments and parameters dropped). Bound: the
unit above 60% of its peak, the higher one when both are ("dram", "sm"); "latency" when neither
is (launch, synchronisation or dependency bound: the kernel leaves both units idle). Fractions
and percentages are time-weighted over a kernel's launches.
"""
import argparse
import csv
import os
import re
import sys

TIME = "gpu__time_duration.sum"
READ = "dram__bytes_read.sum"
WRITE = "dram__bytes_write.sum"
SM = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
DRAM = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"
METRICS = [TIME, READ, WRITE, SM, DRAM]
BOUND_PCT = 60.0

SCALE = {
    "": 1.0, "%": 1.0, "byte": 1.0, "kbyte": 1e3, "mbyte": 1e6, "gbyte": 1e9, "tbyte": 1e12,
    "nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1.0,
    "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0,
}


def number(text, unit, where):
    """A metric's value in base units (bytes, seconds, %); ncu may group digits with commas."""
    t = (text or "").strip().replace(",", "")
    if t in ("", "n/a", "N/A"):
        return None
    try:
        v = float(t)
    except ValueError:
        raise ValueError(f"{where}: '{text}' is not a number")
    u = (unit or "").strip().lower()
    if u not in SCALE:
        raise ValueError(f"{where}: unknown unit '{unit}'")
    return v * SCALE[u]


def base_name(kernel):
    """The function's name: 'void ns::f<...>(args)' -> 'ns::f' (what ncu's --kernel-name-base
    function prints; demangled names are reduced the same way)."""
    k = kernel.strip()
    depth, out = 0, []
    for ch in k:  # drop template arguments at any depth
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    k = "".join(out)
    k = k.split("(", 1)[0].strip()
    k = re.sub(r"^(void|static|__global__)\s+", "", k)
    k = re.sub(r"\s+", " ", k)
    return k.split(" ")[-1] if " " in k else k


def launches_wide(rows, path):
    header = rows[0]
    if "Kernel Name" not in header:
        raise ValueError(f"{path}: no 'Kernel Name' column")
    col = {name: i for i, name in enumerate(header)}
    missing = [m for m in METRICS if m not in col]
    if missing:
        raise ValueError(f"{path}: metrics missing from the report: {', '.join(missing)}")
    units = rows[1] if len(rows) > 1 and rows[1][col["Kernel Name"]].strip() == "" else None
    body = rows[2:] if units else rows[1:]
    out = []
    for n, r in enumerate(body):
        if len(r) < len(header):
            continue
        where = f"{path}: launch {n + 1}"
        out.append({"kernel": base_name(r[col["Kernel Name"]]),
                    **{m: number(r[col[m]], units[col[m]] if units else "", where) for m in METRICS}})
    return out


def launches_long(rows, path):
    header = rows[0]
    col = {name: i for i, name in enumerate(header)}
    for need in ("ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value"):
        if need not in col:
            raise ValueError(f"{path}: no '{need}' column")
    by_id = {}
    order = []
    for r in rows[1:]:
        if len(r) < len(header):
            continue
        i = r[col["ID"]]
        if i not in by_id:
            by_id[i] = {"kernel": base_name(r[col["Kernel Name"]])}
            order.append(i)
        m = r[col["Metric Name"]]
        if m in METRICS:
            by_id[i][m] = number(r[col["Metric Value"]], r[col["Metric Unit"]], f"{path}: launch {i}")
    out = []
    for i in order:
        missing = [m for m in METRICS if m not in by_id[i]]
        if missing:
            raise ValueError(f"{path}: launch {i} lacks {', '.join(missing)}")
        out.append(by_id[i])
    return out


def read_launches(path):
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        lines = [l for l in f if not l.startswith("==")]  # ncu's own ==PROF== / ==WARNING== lines
    rows = [r for r in csv.reader(lines) if r]
    if not rows:
        raise ValueError(f"{path}: empty report")
    if "Metric Name" in rows[0]:
        return launches_long(rows, path)
    return launches_wide(rows, path)


def table(launches, peak_bytes_s):
    kernels = {}
    for l in launches:
        t = l[TIME] or 0.0
        k = kernels.setdefault(l["kernel"], {"calls": 0, "time": 0.0, "bytes": 0.0, "sm": 0.0, "dram": 0.0})
        k["calls"] += 1
        k["time"] += t
        k["bytes"] += (l[READ] or 0.0) + (l[WRITE] or 0.0)
        k["sm"] += (l[SM] or 0.0) * t
        k["dram"] += (l[DRAM] or 0.0) * t
    total = sum(k["time"] for k in kernels.values())
    rows = []
    for name, k in kernels.items():
        t = k["time"]
        sm = k["sm"] / t if t > 0 else 0.0
        dram = k["dram"] / t if t > 0 else 0.0
        if max(sm, dram) >= BOUND_PCT:
            bound = "dram" if dram >= sm else "sm"
        else:
            bound = "latency"
        rows.append({"kernel": name, "calls": k["calls"], "ms": t * 1e3, "share": t / total if total > 0 else 0.0,
                     "mb": k["bytes"] / 1e6, "gbs": k["bytes"] / t / 1e9 if t > 0 else 0.0,
                     "peak": k["bytes"] / t / peak_bytes_s if t > 0 else 0.0, "sm": sm, "dram": dram,
                     "bound": bound})
    rows.sort(key=lambda r: -r["ms"])
    return rows, total


def render(label, rows, total, top, markdown):
    out = []
    shown = rows[:top] if top else rows
    rest = rows[len(shown):]
    if markdown:
        out.append(f"**{label}**: {len(rows)} kernels, {sum(r['calls'] for r in rows)} launches, "
                   f"{total * 1e3:.2f} ms\n")
        out.append("| kernel | calls | ms | share | DRAM MB | GB/s | of peak | SM % | DRAM % | bound |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in shown:
            out.append(f"| `{r['kernel']}` | {r['calls']} | {r['ms']:.3f} | {r['share'] * 100:.1f}% | "
                       f"{r['mb']:.1f} | {r['gbs']:.0f} | {r['peak']:.2f} | {r['sm']:.0f} | {r['dram']:.0f} | "
                       f"{r['bound']} |")
    else:
        out.append(f"{label}: {len(rows)} kernels, {sum(r['calls'] for r in rows)} launches, {total * 1e3:.2f} ms")
        out.append(f"  {'kernel':48s} {'calls':>6s} {'ms':>9s} {'share':>6s} {'DRAM MB':>9s} {'GB/s':>6s} "
                   f"{'peak':>5s} {'SM%':>4s} {'DRAM%':>5s} bound")
        for r in shown:
            out.append(f"  {r['kernel'][:48]:48s} {r['calls']:6d} {r['ms']:9.3f} {r['share'] * 100:5.1f}% "
                       f"{r['mb']:9.1f} {r['gbs']:6.0f} {r['peak']:5.2f} {r['sm']:4.0f} {r['dram']:5.0f} "
                       f"{r['bound']}")
    if rest:
        ms = sum(r["ms"] for r in rest)
        out.append(f"  ... {len(rest)} more kernels, {ms:.3f} ms ({ms / (total * 1e3) * 100 if total else 0:.1f}%)")
    return "\n".join(out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", nargs="+", metavar="FILE.csv")
    ap.add_argument("--peak-tbs", type=float, default=3.0, help="DRAM peak in TB/s (the H100's 3.0)")
    ap.add_argument("--top", type=int, default=0, help="only the N longest kernels (and a line for the rest)")
    ap.add_argument("--markdown", action="store_true", help="Markdown tables (for bench/RESULTS.md)")
    a = ap.parse_args(argv)
    if a.peak_tbs <= 0:
        ap.error("--peak-tbs must be positive")
    status = 0
    for path in a.reports:
        try:
            rows, total = table(read_launches(path), a.peak_tbs * 1e12)
        except (OSError, ValueError) as e:
            print(f"ncu_kernel_table: {e}", file=sys.stderr)
            status = 1
            continue
        label = os.path.splitext(os.path.basename(path))[0]
        print(render(label, rows, total, a.top, a.markdown))
        print()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
