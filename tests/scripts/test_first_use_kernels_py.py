#!/usr/bin/env python3
"""bench/first_use_kernels.py (the preload's first-use list, hypre_glue/first_use_kernels.inc)
without a GPU: the order of first launches in one trace, the merge of several, the C++ lines it
writes, its refusals; and that the compiled list is what the script writes (a well-formed
header and one quoted name a line).

  python3 tests/scripts/test_first_use_kernels_py.py [-v]
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "bench", "first_use_kernels.py")
INC = os.path.join(ROOT, "hypre_glue", "first_use_kernels.inc")


def trace(d, name, kernels, extra=()):
    """A kprof TSV: phase lines, then kernel records (name, start) in the order given."""
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write("P\tHYPRE_BoomerAMGSetup\t100\t900\n")
        for line in extra:
            f.write(line + "\n")
        for n, t in kernels:
            f.write(f"K\t{n}\t{t}\t{t + 5}\t0\n")
    return path


class FirstUse(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)

    def names(self, out):
        return re.findall(r'^"([^"]+)",$', out, re.M)

    def test_one_trace_by_first_start(self):
        with tempfile.TemporaryDirectory() as d:
            # records out of time order (CUPTI delivers them by buffer), one kernel three times
            t = trace(d, "a.tsv", [("_Z1bv", 300), ("_Z1av", 200), ("_Z1bv", 150), ("_Z1cv", 400), ("_Z1av", 500)],
                      extra=["R\tcudaLaunchKernel\t10\t20\t0", "C\tmemcpy1\t30\t40\t64"])
            r = self.run_script(t)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(self.names(r.stdout), ["_Z1bv", "_Z1av", "_Z1cv"], "b first started at 150")
            self.assertIn("3 names from 1 traces (3 a trace)", r.stdout)
            for line in r.stdout.splitlines():
                self.assertTrue(line.startswith("//") or re.match(r'^"[A-Za-z0-9_.$]+",$', line), line)

    def test_traces_merged_by_relative_place(self):
        with tempfile.TemporaryDirectory() as d:
            small = trace(d, "1.tsv", [("_Z1av", 1), ("_Z1bv", 2), ("_Z1cv", 3), ("_Z1dv", 4)])
            # a larger hierarchy: x first, then a; y late
            large = trace(d, "2.tsv", [("_Z1xv", 1), ("_Z1av", 2), ("_Z1bv", 3), ("_Z1cv", 4), ("_Z1dv", 5),
                                       ("_Z1ev", 6), ("_Z1fv", 7), ("_Z1yv", 8)])
            r = self.run_script(small, large)
            self.assertEqual(r.returncode, 0, r.stderr)
            # earliest places: a 0 (first trace, so before x's 0 in the second), x 0, b 1/4 (= 2/8,
            # the first trace's), c 3/8, d 4/8, e 5/8, f 6/8, y 7/8
            self.assertEqual(self.names(r.stdout), ["_Z1av", "_Z1xv", "_Z1bv", "_Z1cv", "_Z1dv", "_Z1ev", "_Z1fv", "_Z1yv"])
            self.assertIn("8 names from 2 traces (4, 8 a trace)", r.stdout)

    def test_refusals(self):
        with tempfile.TemporaryDirectory() as d:
            empty = trace(d, "e.tsv", [])
            r = self.run_script(empty)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("no kernel records", r.stderr)
            odd = trace(d, "o.tsv", [('_Z1a"v', 1)])
            r = self.run_script(odd)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("not a mangled name", r.stderr)
            r = self.run_script(os.path.join(d, "missing.tsv"))
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("missing.tsv", r.stderr)
            r = self.run_script()
            self.assertEqual(r.returncode, 2)

    def test_the_compiled_list_is_the_scripts_form(self):
        with open(INC) as f:
            text = f.read()
        names = self.names(text)
        m = re.search(r"^// (\d+) names from (\d+) traces", text, re.M)
        self.assertIsNotNone(m, "the header says how many names and traces")
        self.assertEqual(int(m.group(1)), len(names))
        self.assertEqual(len(names), len(set(names)), "each name once")
        self.assertIn("bench/first_use_kernels.py", text, "the header says how it is made again")
        for line in text.splitlines():
            self.assertTrue(line.startswith("//") or re.match(r'^"_Z[A-Za-z0-9_.$]+",$', line), line)


if __name__ == "__main__":
    unittest.main()
