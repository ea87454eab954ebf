#!/usr/bin/env python3
"""bench/beside_stock.py without a GPU: the ratios of one process's JSON, the per-case medians
over processes and the lowest, the geomeans per mode and the cases below 0.98 come out as
computed by hand; the processes of several --json files are summarised together, and a file
that is not one is a clear error; a case file is read as run.sh reads it, its matrix paths moved
with --matrices.

  python3 tests/scripts/test_beside_stock_py.py [-v]
"""
import json
import math
import os
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import beside_stock as bs  # noqa: E402


def run(case, mode, total, setup=None, solve=None, its=(10,), stock_its=(10,)):
    """One process's row as main() builds it, from the ratios wanted."""
    ratios = {"setup": setup if setup is not None else total, "solve": solve if solve is not None else total,
              "total": total}
    return {"case": case, "mode": mode, "proc": 1, "ratios": ratios, "stock_total_s": 0.010,
            "total_s": 0.010 / total, "iterations": list(its), "stock_iterations": list(stock_its),
            "rows": 1000, "nnz": 7000}


class ModeEnv(unittest.TestCase):
    def test_modes_as_run_sh_sets_them(self):
        saved = dict(os.environ)
        try:
            os.environ["AMGT"] = "mixed"
            os.environ["AMGT_SETUP_KERNELS"] = "1"
            env = bs.mode_env("fp64-sk")
            self.assertEqual((env["AMGT"], env["AMGT_SETUP_KERNELS"]), ("fp64", "1"))
            env = bs.mode_env("auto")
            self.assertEqual(env["AMGT"], "auto")
            self.assertNotIn("AMGT_SETUP_KERNELS", env)  # a caller's own switch is not carried in
            env = bs.mode_env("unset")
            self.assertNotIn("AMGT", env)
            self.assertNotIn("AMGT_SETUP_KERNELS", env)
            self.assertEqual(bs.mode_env("fp32")["AMGT"], "fp32")  # a bare AMGT value
        finally:
            os.environ.clear()
            os.environ.update(saved)


class Ratios(unittest.TestCase):
    def test_stock_over_mode(self):
        r = {"stock_setup_s": 0.004, "setup_s": 0.002, "stock_solve_s": 0.003, "solve_s": 0.006,
             "stock_total_s": 0.007, "total_s": 0.008}
        got = bs.ratios(r)
        self.assertAlmostEqual(got["setup"], 2.0)
        self.assertAlmostEqual(got["solve"], 0.5)
        self.assertAlmostEqual(got["total"], 0.875)


class Summarize(unittest.TestCase):
    def setUp(self):
        self.runs = [run("a", "fp64", 1.10), run("a", "fp64", 0.90), run("a", "fp64", 1.02),
                     run("b", "fp64", 0.95, setup=0.90, solve=1.20), run("b", "fp64", 0.97),
                     run("a", "auto", 1.05, its=(11, 12), stock_its=(10, 10)),
                     run("b", "auto", 1.00)]

    def test_medians_lowest_and_geomeans(self):
        summary, text = bs.summarize(self.runs, ["a", "b"], ["fp64", "auto"])
        by = {(x["case"], x["mode"]): x for x in summary}
        self.assertEqual(by[("a", "fp64")]["procs"], 3)
        self.assertAlmostEqual(by[("a", "fp64")]["median"]["total"], 1.02)
        self.assertAlmostEqual(by[("a", "fp64")]["lowest_total"], 0.90)
        # two processes: the median is their mean
        self.assertAlmostEqual(by[("b", "fp64")]["median"]["total"], 0.96)
        self.assertAlmostEqual(by[("b", "fp64")]["median"]["setup"], (0.90 + 0.97) / 2)
        self.assertAlmostEqual(by[("b", "fp64")]["stock_total_ms"], 10.0)
        g = math.sqrt(1.02 * 0.96)
        self.assertIn(f"geomean fp64: setup {math.sqrt(1.02 * 0.935):.3f}", text)
        self.assertIn(f"total {g:.3f} over 2 cases; total below 0.98: 1 (b)", text)
        self.assertIn(f"geomean auto: setup {math.sqrt(1.05):.3f}", text)
        self.assertIn("total below 0.98: 0\n", text + "\n")
        # iterations: the mode's median / stock's median over every solve of the processes
        line = [l for l in text.splitlines() if l.startswith("a ") and " auto " in l][0]
        self.assertTrue(line.endswith("11.5/10"), line)

    def test_missing_pairs_are_left_out(self):
        summary, text = bs.summarize(self.runs, ["a", "c"], ["fp64", "unset"])
        self.assertEqual([(x["case"], x["mode"]) for x in summary], [("a", "fp64")])
        self.assertNotIn("geomean unset", text)


class FromJson(unittest.TestCase):
    def test_files_merged_in_order(self):
        paths = []
        try:
            for rows in ([run("a", "fp64", 1.10), run("b", "fp64", 0.95)],
                         [run("a", "fp64", 0.90), run("a", "unset", 1.00)]):
                with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                    json.dump({"runs": rows, "summary": [], "failed": []}, f)
                    paths.append(f.name)
            runs, cases, modes = bs.merged_runs(paths)
        finally:
            for p in paths:
                os.unlink(p)
        self.assertEqual(len(runs), 4)
        self.assertEqual(cases, ["a", "b"])
        self.assertEqual(modes, ["fp64", "unset"])
        summary, _ = bs.summarize(runs, cases, modes)
        by = {(x["case"], x["mode"]): x for x in summary}
        self.assertEqual(by[("a", "fp64")]["procs"], 2)
        self.assertAlmostEqual(by[("a", "fp64")]["median"]["total"], 1.00)

    def test_not_a_json_of_the_script_is_an_error(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"summary": []}')
        try:
            with self.assertRaises(SystemExit) as e:
                bs.merged_runs([f.name])
        finally:
            os.unlink(f.name)
        self.assertIn("not a --json file of this script", str(e.exception))


class Cases(unittest.TestCase):
    def read(self, text, matrices=""):
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
            f.write(text)
        try:
            return bs.read_cases(f.name, matrices)
        finally:
            os.unlink(f.name)

    def test_matrices_moved_and_comments_skipped(self):
        got = self.read("# a comment\n\nm1\t--matrix ../shared/datasets/matrices/x.mtx.gz --solver pcg\n"
                        "g1\t--problem laplace7 --n 10\n", "/data/m")
        self.assertEqual(got, [("m1", ["--matrix", "/data/m/x.mtx.gz", "--solver", "pcg"]),
                               ("g1", ["--problem", "laplace7", "--n", "10"])])

    def test_read_as_run_sh_reads_it(self):
        # bare arguments (the label from them), a JSON line, and a repeated label made unique
        got = self.read("--problem jump7 --n 12\n"
                        '{"label": "j", "args": ["--problem", "aniso7", "--n", "9"]}\n'
                        "j\t--problem laplace7 --n 8\n")
        self.assertEqual(got, [("jump7-n12", ["--problem", "jump7", "--n", "12"]),
                               ("j", ["--problem", "aniso7", "--n", "9"]),
                               ("j#2", ["--problem", "laplace7", "--n", "8"])])


if __name__ == "__main__":
    unittest.main()
