#!/usr/bin/env python3
"""bench/spmv_cost_table.py (the SpMV cost table behind the planner's cost model) without a GPU:
its text table and its --cxx rows from kernel-bench records written here, and the table the
library compiles (hypre_glue/spmv_cost_table.inc) in the order hypre_glue/cost_model.cpp reads
it: every row of one precision and nominal row length together, by entries.

  python3 tests/scripts/test_spmv_cost_table_py.py [-v]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "bench", "spmv_cost_table.py")
INC = os.path.join(ROOT, "hypre_glue", "spmv_cost_table.inc")
ROW = re.compile(r"^\{(\d), (\d+), (\d+), (\d+), ([0-9.]+), ([0-9.]+), ([0-9.]+)\}, // (fp\d\d), (\d+) a row, (rows|mbsr)$")


def record(matrix, rows, nnz, impl, ms, **extra):
    r = {"section": "spmv", "status": "ok", "matrix": matrix, "rows": rows, "nnz": nnz, "impl": impl,
         "median_ms": ms}
    r.update(extra)
    return json.dumps(r)


class CostTable(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)

    def write(self, d, name, lines):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write('{"section":"info"}\n' + "\n".join(lines) + "\n")
        return path

    def test_rows_and_the_cxx_form(self):
        with tempfile.TemporaryDirectory() as d:
            fp32 = self.write(d, "fp32.jsonl", [
                # a row-wise pick: the rows kernel's time and its build
                record("band_r1000_l7", 1000, 6979, "hypre", 0.010),
                record("band_r1000_l7", 1000, 6979, "ours", 0.009, precision="fp32", layout_rule="rows"),
                record("band_r1000_l7", 1000, 6979, "ours:rows", 0.006, precision="fp32", rows_build_ms=0.09),
                # an mBSR pick: the library copy's SpMV, the conversion and the plan
                record("band_r4000000_l4", 4000000, 15999996, "hypre", 0.200),
                record("band_r4000000_l4", 4000000, 15999996, "ours", 0.150, precision="fp32", layout_rule="mbsr",
                       spmv_library_copy_us=120.0, conv_entry_ms=1.5, plan_ms=0.5),
                # a failed run is left out
                json.dumps({"section": "spmv", "status": "error", "matrix": "band_r9_l4", "rows": 9, "nnz": 30,
                            "impl": "ours"}),
            ])
            text = self.run_script(fp32)
            self.assertEqual(text.returncode, 0, text.stderr)
            self.assertIn("break-even matvecs", text.stdout)
            lines = [l for l in text.stdout.splitlines() if l.startswith("fp32")]
            self.assertEqual(len(lines), 2, text.stdout)
            cxx = self.run_script("--cxx", fp32)
            self.assertEqual(cxx.returncode, 0, cxx.stderr)
            rows = [ROW.match(l) for l in cxx.stdout.splitlines()]
            self.assertTrue(all(rows), cxx.stdout)
            # sorted by nominal length: 4 before 7
            (a, b) = rows
            self.assertEqual((a.group(1), a.group(2), a.group(3), a.group(4)), ("1", "4", "15999996", "4000000"))
            self.assertAlmostEqual(float(a.group(5)), 200.0)
            self.assertAlmostEqual(float(a.group(6)), 120.0)
            self.assertAlmostEqual(float(a.group(7)), 2000.0)
            self.assertEqual(a.group(10), "mbsr")
            self.assertEqual((b.group(2), b.group(3)), ("7", "6979"))
            self.assertAlmostEqual(float(b.group(6)), 6.0)
            self.assertAlmostEqual(float(b.group(7)), 90.0)
            self.assertEqual(b.group(10), "rows")

    def test_nothing_to_tabulate_fails(self):
        with tempfile.TemporaryDirectory() as d:
            empty = self.write(d, "fp64.jsonl", [])
            self.assertEqual(self.run_script("--cxx", empty).returncode, 1)
            self.assertEqual(self.run_script(os.path.join(d, "missing.jsonl")).returncode, 1)

    def test_the_compiled_table_is_in_the_order_the_model_reads(self):
        rows = []
        with open(INC) as f:
            for line in f:
                if line.startswith("//") or not line.strip():
                    continue
                m = ROW.match(line.rstrip("\n"))
                self.assertIsNotNone(m, line)
                rows.append((int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(5)),
                             float(m.group(6)), float(m.group(7))))
        self.assertEqual({r[0] for r in rows}, {0, 1, 2}, "fp64, fp32 and fp16")
        seen = []
        for i, r in enumerate(rows):
            key = (r[0], r[1])
            if not seen or seen[-1] != key:
                self.assertNotIn(key, seen, f"row {i}: precision {r[0]}, length {r[1]} again after another series")
                seen.append(key)
            elif rows[i - 1][2] >= r[2]:
                self.fail(f"row {i}: entries not ascending within its series")
            self.assertTrue(all(x > 0 for x in r[3:]), f"row {i}: a time or cost not positive")
        lengths = {p: [k[1] for k in seen if k[0] == p] for p in (0, 1, 2)}
        self.assertEqual(lengths[0], sorted(lengths[0]))
        self.assertEqual(lengths[0], lengths[1])
        self.assertEqual(lengths[0], lengths[2])
        self.assertGreaterEqual(len(lengths[0]), 2, "at least two row lengths to interpolate between")


if __name__ == "__main__":
    unittest.main()
