#!/usr/bin/env python3
"""The SpMV cost table from amgt-kernel-bench's JSON records (bench/spmv_cost_sweep.sh).

Per operator and storage precision: hypre's SpMV (its own kernel, fp64 CSR), the plugin's SpMV in
the layout the planner's rule picks (layout_rule: the row-wise kernel, or the entry-order mBSR copy
the library makes), the plugin's one-time work for that copy (the row-wise build, or the
conversion + SpMV plan), the gain per matvec and the matvecs that repay the one-time work.

    spmv_cost_table.py [--cxx] FILE.jsonl [FILE.jsonl ...]

--cxx prints the table as the C++ rows of hypre_glue/spmv_cost_table.inc (the planner's cost
model, hypre_glue/cost_model.h) instead of the text table.
"""
import json
import re
import sys


def nominal(matrix):
    """The row length a sweep's operator was asked for (band_r<rows>_l<len>; its actual mean is
    lower at the smallest sizes, where the band is cut at the matrix's edges)."""
    m = re.search(r"_l([0-9]+)$", matrix)
    return int(m.group(1)) if m else 0


def main(args):
    cxx = "--cxx" in args
    paths = [a for a in args if a != "--cxx"]
    rows = []
    for path in paths:
        # one file = one run of the bench in one storage precision: hypre's and ours side by side
        by = {}
        try:
            f = open(path)
        except OSError as e:
            print(f"spmv_cost_table: {e}", file=sys.stderr)
            continue
        with f:
            for line in f:
                line = line.strip()
                if not line.startswith("{"):
                    continue
                r = json.loads(line)
                if r.get("section") != "spmv" or r.get("status") != "ok":
                    continue
                by.setdefault((r["matrix"], r["rows"], r["nnz"]), {})[r["impl"]] = r
        for (matrix, nrows, nnz), impls in by.items():
            hyp = impls.get("hypre")
            ours = impls.get("ours") or impls.get("ours:rows")
            if not hyp or not ours:
                continue
            prec = ours.get("precision", "fp64")
            rule = ours.get("layout_rule", "")
            if rule == "rows" and "ours:rows" in impls:
                t = impls["ours:rows"]["median_ms"]
                once = impls["ours:rows"].get("rows_build_ms", 0.0)
            elif "ours" in impls:
                o = impls["ours"]
                t = o.get("spmv_library_copy_us", o["median_ms"] * 1e3) / 1e3
                once = o.get("conv_entry_ms", o.get("convert_ms", 0.0)) + o.get("plan_ms", 0.0)
            else:
                continue
            gain = hyp["median_ms"] - t
            rows.append((prec, round(nnz / nrows), nnz, nrows, rule or "?", hyp["median_ms"] * 1e3, t * 1e3,
                         once * 1e3, gain * 1e3, (once / gain) if gain > 0 else float("inf"), matrix))
    rows.sort()
    if cxx:
        # {precision, the sweep's nominal row length, entries, rows, hypre us, plugin us,
        # one-time us}; precision 0 fp64, 1 fp32, 2 fp16
        code = {"fp64": 0, "fp32": 1, "fp16": 2}
        for p, ln, nnz, nr, lay, h, t, once, g, be, name in sorted(rows, key=lambda r: (r[0], nominal(r[10]), r[2])):
            print(f"{{{code[p]}, {nominal(name)}, {nnz}, {nr}, {h:.2f}, {t:.2f}, {once:.2f}}}, // {p}, {ln} a row, {lay}")
        return 0 if rows else 1
    print("precision  len      entries       rows layout   hypre us  plugin us  one-time us  gain us/matvec  "
          "break-even matvecs")
    for p, ln, nnz, nr, lay, h, t, once, g, be, _ in rows:
        bes = f"{be:.0f}" if be != float("inf") else "never"
        print(f"{p:9s} {ln:4d} {nnz:12d} {nr:10d} {lay:6s} {h:10.2f} {t:10.2f} {once:12.2f} {g:15.2f} {bes:>19s}")
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
