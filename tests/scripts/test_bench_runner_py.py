#!/usr/bin/env python3
"""scripts/bench_runner.py's pure parts, without a build: the AMGT_STATS table parser (on the
table as the library writes it to its AMGT_STATS_FILE, to stderr among other messages, and on
the one-line answers that are no table), the modes of GPU and CPU builds, the speedups against
stock best and against stock-default and the cold ratios of a summary, the CPU summary's
wording, the case files in bench/, and --steps (the re-setup modes, the per-step table and
its ratios against stock and stock-frozen), and the cold totals paired round by round (--rounds),
alone and pooled over several outputs (bench/cold_pairs.py).

  python3 tests/scripts/test_bench_runner_py.py [-v]
"""
import argparse
import json
import contextlib
import math
import io
import os
import sys
import tempfile
import unittest
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench_report  # noqa: E402
import bench_runner  # noqa: E402
import matrix  # noqa: E402

# As hypre_glue/stats.cpp formats it (AMGT=auto, d,s,h, laplace7 n=20, CPU build).
TABLE = """AMGT statistics (rank 0 of 1): mode auto, schedule d,s,h
 level       rows          nnz      tiles   fill  prec  conv   spgemm   spgemm_ms     spmv     spmv_ms fallbacks  path
     0       8000        53600      12800   4.19  fp64     4        2      78.854      181      95.839         0  cpu-ref
     1       2619        65757      25763   2.55  fp32     4        2      31.798      120      74.256         0  cpu-ref
     2        388        18790       4117   4.56  fp16     7        2       6.976      120      16.194         0  cpu-ref
 other          -            -          -      -  fp64     0        0       0.000        0       0.000         2  -
AMGT: why level 0: A:fp64/floor P:fp64/floor R:fp64/floor x:fp64
AMGT: why level 1: A:fp32/floor P:fp32/floor R:fp32/floor x:fp32
AMGT fallbacks to stock hypre by reason: multivector=2
AMGT: auto level 1 A 2619x2619: max|a| 7.21 -> fp32 (floor)
"""


def write_runs(path, records):
    """records as run.sh's runs.jsonl holds them, one JSON object a line; returns path."""
    with open(path, "w") as f:
        f.write("".join(json.dumps(r) + "\n" for r in records))
    return path


class ParseStats(unittest.TestCase):
    def check_table(self, t):
        self.assertIsNotNone(t)
        self.assertEqual((t["rank"], t["ranks"], t["mode"], t["schedule"]), (0, 1, "auto", "d,s,h"))
        self.assertEqual([l["level"] for l in t["levels"]], [0, 1, 2, -1])
        l1 = t["levels"][1]
        self.assertEqual((l1["rows"], l1["nnz"], l1["prec"], l1["spgemm_calls"], l1["spmv_calls"]),
                         (2619, 65757, "fp32", 2, 120))
        self.assertAlmostEqual(l1["spmv_ms"], 74.256)
        self.assertIsNone(t["levels"][3]["rows"])
        self.assertEqual(t["fallback_reasons"], {"multivector": 2})
        self.assertIn("why level 1: A:fp32/floor P:fp32/floor R:fp32/floor x:fp32", t["notes"])

    def test_the_file_as_written(self):
        self.check_table(bench_runner.parse_stats(TABLE))

    def test_stderr_with_other_messages_around_it(self):
        err = ("amgt-solve: warning: 3 of 8000 rows are empty; AMG may fail on them\n"
               "AMGT: AMGT_LEVELS has no effect without AMGT=mixed or AMGT=auto (AMGT is off)\n"
               + TABLE + "amgt-solve: warning: not converged\n")
        self.check_table(bench_runner.parse_stats(err))

    def test_no_table_when_the_plugin_was_off_or_idle(self):
        self.assertIsNone(bench_runner.parse_stats(
            "AMGT statistics: none, the plugin was off (AMGT unset, off or not valid): stock hypre ran everything\n"))
        self.assertIsNone(bench_runner.parse_stats(
            "AMGT statistics (rank 0 of 1): mode fp64, no plugin call on this rank\n"))


class Modes(unittest.TestCase):
    def test_gpu_build_runs_every_stock_configuration(self):
        modes, notes = bench_runner.parse_modes(bench_runner.DEFAULT_MODES, True)
        self.assertEqual(modes, ["stock", "vendor", "stock-default", "fp64", "mixed", "auto"])
        self.assertEqual(notes, [])
        m = bench_runner.MODES["stock-default"]
        self.assertEqual(bench_runner.Runner.mode_args(m),
                         ["--vendor-spgemm", "1", "--vendor-spmv", "1", "--pool", "0"])
        self.assertEqual(bench_runner.Runner.mode_args(bench_runner.MODES["stock"])[-2:], ["--pool", "1"])
        self.assertEqual(bench_runner.parse_modes("default,fp64", True)[0], ["stock-default", "fp64"])

    @staticmethod
    def runner():
        a = argparse.Namespace(gpu_build=1, solves=1, repeat=3, np=1, stats=False, plots=False,
                               out=tempfile.gettempdir())
        return bench_runner.Runner(a)

    def test_row_wise_spgemm_modes_set_amgt_spgemm(self):
        r = self.runner()
        with mock.patch.dict(os.environ):
            os.environ.pop("AMGT_SPGEMM", None)
            env = r.env_for("fp64-rows", False)
            self.assertEqual((env["AMGT"], env["AMGT_SPGEMM"]), ("fp64", "rows"))
            self.assertEqual(r.env_for("auto-rows", False)["AMGT_SPGEMM"], "rows")
            self.assertNotIn("AMGT_SPGEMM", r.env_for("fp64", False))
            # a user's own setting still reaches the other modes, as before
            os.environ["AMGT_SPGEMM"] = "stock"
            self.assertEqual(r.env_for("fp64", False)["AMGT_SPGEMM"], "stock")
            self.assertEqual(r.env_for("fp64-rows", False)["AMGT_SPGEMM"], "rows")

    def test_setup_kernel_modes_set_amgt_setup_kernels(self):
        r = self.runner()
        # a user's setting does not leak into fp64
        with mock.patch.dict(os.environ, {"AMGT_SETUP_KERNELS": "1"}):
            self.assertEqual((r.env_for("fp64-sk", False)["AMGT"], r.env_for("fp64-sk", False)["AMGT_SETUP_KERNELS"]),
                             ("fp64", "1"))
            self.assertEqual(r.env_for("auto-sk", False)["AMGT"], "auto")
            self.assertNotIn("AMGT_SETUP_KERNELS", r.env_for("fp64", False))
            self.assertEqual(r.env_for("auto-hsk", False)["AMGT_SETUP_KERNELS"], "0")

    def test_preload_modes_set_amgt_preload_and_the_others_run_its_default(self):
        r = self.runner()
        # a user's setting does not leak into fp64
        with mock.patch.dict(os.environ, {"AMGT_PRELOAD": "0"}):
            self.assertEqual((r.env_for("fp64-np", False)["AMGT"], r.env_for("fp64-np", False)["AMGT_PRELOAD"]),
                             ("fp64", "0"))
            self.assertEqual((r.env_for("auto-pp", False)["AMGT"], r.env_for("auto-pp", False)["AMGT_PRELOAD"]),
                             ("auto", "plugin"))
            self.assertEqual(r.env_for("fp64-pa", False)["AMGT_PRELOAD"], "always")
            self.assertNotIn("AMGT_PRELOAD", r.env_for("fp64", False))
            self.assertNotIn("AMGT_PRELOAD", r.env_for("stock", False))
            self.assertFalse(bench_runner.MODES["auto-np"]["stock"])

    def test_cpu_build_drops_the_gpu_configurations_with_a_note(self):
        modes, notes = bench_runner.parse_modes(bench_runner.DEFAULT_MODES, False)
        self.assertEqual(modes, ["stock", "fp64", "mixed", "auto"])
        self.assertEqual(len(notes), 2)
        self.assertTrue(any("stock-default" in n and "did not run" in n for n in notes))
        self.assertEqual(bench_runner.parse_modes("stock-default,auto", False)[0], ["stock", "auto"])
        modes, notes = bench_runner.parse_modes("stock-binned,fp64", False)
        self.assertEqual(modes, ["stock", "fp64"])
        self.assertTrue(any("stock-binned" in n and "did not run" in n for n in notes))

    def test_stock_binned_asks_the_driver_for_hypres_binned_mode_only(self):
        self.assertEqual(bench_runner.Runner.mode_args(bench_runner.MODES["stock-binned"]),
                         ["--vendor-spgemm", "0", "--vendor-spmv", "0", "--pool", "1", "--spgemm-binned", "1"])
        for mode in ("stock", "stock-default", "fp64", "auto"):
            self.assertNotIn("--spgemm-binned", bench_runner.Runner.mode_args(bench_runner.MODES[mode]))
        self.assertTrue(bench_runner.MODES["stock-binned"]["stock"], "a stock configuration for 'stock best'")


def record(case, mode, setup, solve, cold_setup, cold_solve, status="ok", solves=1):
    m = bench_runner.MODES[mode]
    res = {"setup_s": setup, "solve_s": solve, "solves_total_s": solve * solves,
           "total_s": setup + solve * solves, "cold_setup_s": cold_setup, "cold_solve_s": cold_solve,
           "cold_total_s": cold_setup + cold_solve * solves, "rows": 1000, "nnz": 7000, "levels": 4,
           "iterations": 10, "rel_residual": 1e-9, "converged": status == "ok", "device": "gpu"}
    return {"case": case, "mode": mode, "mode_label": m["label"], "status": status, "result": res,
            "stats": None}


def runner(gpu, solves=1):
    a = argparse.Namespace(gpu_build=int(gpu), solves=solves, repeat=3, np=1, stats=False, plots=False,
                           out=tempfile.gettempdir())
    r = bench_runner.Runner(a)
    r.records = [record("c", "stock", 1.0, 0.5, 3.0, 0.6, solves=solves),
                 record("c", "stock-default", 2.0, 0.4, 5.0, 0.5, solves=solves),
                 record("c", "fp64", 0.8, 0.25, 2.0, 0.3, solves=solves),
                 record("c", "auto", 0.9, 0.2, 2.4, 0.2, status="not-converged", solves=solves)]
    r.derive()
    return r


class Summary(unittest.TestCase):
    def test_speedups_against_stock_best_default_and_cold(self):
        r = runner(True)
        by = {x["mode"]: x for x in r.records}
        # stock best per phase: setup 1.0 (stock), solve 0.4 (stock-default), total 1.5 (stock)
        self.assertEqual(r.best["c"]["solve"], (0.4, "stock-default"))
        self.assertAlmostEqual(by["fp64"]["speedup_setup"], 1.0 / 0.8)
        self.assertAlmostEqual(by["fp64"]["speedup_solve"], 0.4 / 0.25)
        self.assertAlmostEqual(by["fp64"]["speedup_total"], 1.5 / 1.05)
        # against hypre's default configuration
        self.assertAlmostEqual(by["fp64"]["speedup_default_total"], 2.4 / 1.05)
        self.assertAlmostEqual(by["stock"]["speedup_default_setup"], 2.0)
        self.assertAlmostEqual(by["stock-default"]["speedup_default_total"], 1.0)
        # cold: against the best stock cold, per phase
        self.assertAlmostEqual(by["fp64"]["cold_ratio_setup"], 3.0 / 2.0)
        self.assertAlmostEqual(by["fp64"]["cold_ratio_solve"], 0.5 / 0.3)
        # a failed run has no ratios and is left out of the geomeans
        self.assertIsNone(by["auto"]["speedup_total"])
        self.assertIsNone(by["auto"]["cold_ratio_setup"])
        self.assertEqual(r.geo["auto"]["cases"], 0)
        self.assertAlmostEqual(r.geo["fp64"]["default_total"], 2.4 / 1.05)
        text = r.summary_text([])
        self.assertIn("Geometric mean speedup vs stock best", text)
        self.assertIn("Geometric mean speedup vs hypre's default configuration", text)
        self.assertIn("vs hypre default", text)
        self.assertIn(f"{2.4 / 1.05:.3f}x", text)
        self.assertNotIn("CPU build", text)

    def test_solves_column_and_total(self):
        r = runner(True, solves=4)
        text = r.summary_text([])
        self.assertIn("4 solves", text)
        self.assertIn("4 solves per setup", text)
        fp64 = next(x for x in r.records if x["mode"] == "fp64")
        self.assertAlmostEqual(fp64["speedup_total"], 3.0 / 1.8)  # stock 1 + 4 * 0.5 vs 0.8 + 4 * 0.25

    def test_cpu_summary_says_plainly_that_ratios_are_no_speedups(self):
        r = runner(False)
        text = r.summary_text([])
        # at the top, before any number, and again at the geomean table
        first_table = text.index("\nc  (")
        self.assertIn("CPU reference implementations", text[:first_table])
        self.assertIn("not speedups of AMGT", text[:first_table])
        self.assertIn("Geometric mean time ratio vs stock best", text)
        self.assertNotIn("Geometric mean speedup", text)
        self.assertNotIn("speedup =", text)


class ColdPairs(unittest.TestCase):
    """--rounds: the cold totals paired round by round (bench_report.median_interval and
    Report.cold_pairs): pooled records of run_case_mode's shape, through pool_rounds."""

    def test_median_interval_by_order_statistics(self):
        med, low, high = bench_report.median_interval([5, 1, 4, 2, 3, 8, 7, 6])
        self.assertEqual(med, 4.5)
        # n = 8: P(Binomial(8, 1/2) <= 1) = 9/256 <= 0.05 < P(<= 2): the 2nd smallest and largest
        self.assertEqual((low, high), (2, 7))
        # n = 4: even the extremes hold the median with only 7/8 probability: no interval at 90%
        self.assertEqual(bench_report.median_interval([1.0, 2.0, 3.0, 4.0]), (2.5, None, None))
        self.assertEqual(bench_report.median_interval([1, 2, 3, 4, 5]), (3, 1, 5))  # 1 - 2/32 >= 0.9
        self.assertEqual(bench_report.median_interval([]), (None, None, None))

    def test_student_t_quantiles_and_the_geometric_mean_interval(self):
        # Student's t quantiles as tables give them (df 1 is the Cauchy law's: tan(0.475 pi))
        for p, df, want in ((0.975, 10, 2.228139), (0.95, 10, 1.812461), (0.975, 30, 2.042272),
                            (0.995, 4, 4.604095), (0.95, 1000, 1.646379)):
            self.assertAlmostEqual(bench_report.t_quantile(p, df), want, places=5)
        self.assertAlmostEqual(bench_report.t_quantile(0.975, 1), 12.706205, places=4)
        self.assertEqual(bench_report.t_quantile(0.5, 7), 0.0)
        for bad in ((0.4, 5), (1.0, 5), (0.9, 0)):
            with self.assertRaises(ValueError):
                bench_report.t_quantile(*bad)
        # the logs' mean and sd by hand: logs 0, +-0.1, +-0.2 -> mean 0, sd sqrt(0.1 / 4)
        vals = [1.0, 1.1 ** 1, 1.0 / 1.1, 1.1 ** 2, 1.0 / 1.1 ** 2]
        logs = [math.log(v) for v in vals]
        sd = (sum(x * x for x in logs) / 4) ** 0.5
        gm, low, high = bench_report.mean_interval(vals, 0.9)
        self.assertAlmostEqual(gm, 1.0)
        h = 2.131847 * sd / 5 ** 0.5  # t(0.95, 4)
        self.assertAlmostEqual(low, math.exp(-h), places=6)
        self.assertAlmostEqual(high, math.exp(h), places=6)
        gm4, low4, high4 = bench_report.mean_interval([1.2, 1.3, 1.1, 1.2])  # fewer than five: no interval
        self.assertAlmostEqual(gm4, (1.2 * 1.3 * 1.1 * 1.2) ** 0.25)
        self.assertEqual((low4, high4), (None, None))
        self.assertEqual(bench_report.mean_interval([]), (None, None, None))
        # verdicts: the same pairs decided by the t interval where the order statistics leave them open
        pairs = [1.05, 0.99, 1.08, 1.04, 1.06, 1.03, 1.07]  # the extremes are the median's interval
        self.assertEqual(bench_report.cold_verdict(pairs, 1.0)["verdict"], "open")
        t = bench_report.cold_verdict(pairs, 1.0, interval="t")
        self.assertEqual((t["verdict"], t["pairs"]), ("above", 7))
        self.assertNotIn("median", t)
        self.assertAlmostEqual(bench_report.cold_center(t), math.exp(sum(map(math.log, pairs)) / 7))
        self.assertEqual(bench_report.cold_verdict([0.8, 0.82, 0.81, 0.79, 0.8], interval="t")["verdict"], "below")
        self.assertEqual(bench_report.cold_verdict([0.8, 0.9, 1.1], interval="t")["verdict"], "open")  # too few
        with self.assertRaises(ValueError):
            bench_report.cold_verdict(pairs, interval="mean")
        text = "\n".join(bench_report.cold_pairs_lines([dict(case="c", mode_label="fp64", **t)], bound=1.0,
                                                         interval="t"))
        self.assertIn("Student's t interval of 90%", text)
        self.assertIn("geomean", text)

    def test_chi_squared_and_the_spread_between_groups(self):
        # chi-squared quantiles and tails as tables give them (df 1: the normal law's square)
        for p, df, want in ((0.975, 10, 20.483177), (0.025, 10, 3.246973), (0.025, 62, 42.126),
                            (0.95, 1, 3.841459), (0.5, 1, 0.454936)):
            self.assertAlmostEqual(bench_report.chi2_quantile(p, df), want, places=3)
        self.assertAlmostEqual(bench_report.chi2_sf(18.307038, 10), 0.05, places=6)
        self.assertAlmostEqual(bench_report.chi2_sf(3.841459, 1), 0.05, places=6)
        self.assertEqual(bench_report.chi2_sf(0.0, 4), 1.0)
        for bad in ((0.0, 5), (1.0, 5), (0.5, 0)):
            with self.assertRaises(ValueError):
                bench_report.chi2_quantile(*bad)

        def group(mean, spread=0.1, n=16):
            # n logs mean + -spread, +spread alternately: mean `mean`, sd spread * sqrt(n / (n - 1))
            return [math.exp(mean + (spread if i % 2 else -spread)) for i in range(n)]
        se = 0.1 * (16 / 15) ** 0.5 / 4  # each group's standard error
        # one true ratio, the groups' means 0.87 of their error about it: Q = 12 * 0.87^2 = 9.1,
        # below its 11 degrees of freedom: no spread estimated, some allowed (Q above 3.8, the
        # chi-squared 2.5% quantile)
        same = [group(0.87 * se * (1 if i % 2 else -1)) for i in range(12)]
        h = bench_report.heterogeneity(same)
        self.assertEqual((h["groups"], h["df"]), (12, 11))
        self.assertAlmostEqual(h["q"], 12 * 0.87 ** 2, places=6)
        self.assertEqual(h["tau"], 0.0)
        self.assertAlmostEqual(h["p"], bench_report.chi2_sf(12 * 0.87 ** 2, 11))
        self.assertAlmostEqual(h["ratio"], 1.0, places=6)
        self.assertGreater(h["tau_high"], 0.0)  # the data allow some spread, bounded
        self.assertLess(h["tau_high"], 2 * se)
        self.assertLess(h["lowest"], h["lowest_at_tau"])
        self.assertLess(h["lowest_at_tau"], h["ratio_low"] + 1e-12)
        # true log ratios -0.1, 0, +0.1 (spread 0.082), each mean known to 0.025: Q far above 11
        apart = [group(0.1 * (i % 3 - 1)) for i in range(12)]
        h = bench_report.heterogeneity(apart)
        self.assertGreater(h["q"], 50.0)
        self.assertLess(h["p"], 1e-6)
        self.assertAlmostEqual(h["tau"], 0.1 * (2 / 3) ** 0.5, delta=0.01)  # the means' own spread
        self.assertGreater(h["tau_high"], h["tau"])
        self.assertLess(h["lowest_at_tau"], math.exp(-0.1))  # below the lowest group's ratio
        # Q by hand for two groups: (m1 - m2)^2 / (s1^2 + s2^2)
        h2 = bench_report.heterogeneity([group(0.0), group(0.05)])
        self.assertAlmostEqual(h2["q"], 0.05 ** 2 / (2 * se * se), places=6)
        # too few groups with a spread: nothing to say
        self.assertIsNone(bench_report.heterogeneity([group(0.0), [1.0, 1.0], [1.2]]))

    def test_the_shape_of_the_log_ratios(self):
        # each group about its own mean: two groups of the same symmetric spread, shifted apart
        n, skew, kurt = bench_report.log_shape([[1.0, 1.1, 1.0 / 1.1], [2.0, 2.2, 2.0 / 1.1], [3.0]])
        self.assertEqual(n, 6)  # the one-value group has no spread about its mean
        self.assertAlmostEqual(skew, 0.0, places=2)
        self.assertAlmostEqual(kurt, -1.5, places=2)  # three points -a, 0, a: 4th moment ratio 1.5
        right = bench_report.log_shape([[1.0, 1.0, 1.0, 1.0, 2.0]])
        self.assertGreater(right[1], 1.0)  # one large ratio: skewed to the right
        self.assertEqual(bench_report.log_shape([[1.0, 1.0]])[1:], (None, None))

    def pooled(self, cold_by_mode):
        a = argparse.Namespace(gpu_build=1, solves=1, repeat=1, np=1, stats=False, plots=False, rounds=2,
                               out=tempfile.mkdtemp())
        r = bench_runner.Runner(a)
        for rnd in range(len(next(iter(cold_by_mode.values())))):
            for mode, colds in cold_by_mode.items():
                rec = record("c", mode, 1.0, 0.5, colds[rnd] - 0.5, 0.5)
                rec["result"].update(input_s=0.01 * (rnd + 1), init_s=0.2, assemble_s=0.03,
                                     probe_cpu_s=0.001 * (rnd + 1), probe_api_s=0.0005)
                rec["round"], rec["wall_s"], rec["log"] = rnd, 1.0, f"{mode}-{rnd}.log"
                r.records.append(rec)
        r.pool_rounds()
        r.derive()
        return r

    def test_pairs_by_round_and_verdicts(self):
        # the machine slows down over the run: stock's and the mode's processes of a round move
        # together, so the paired ratios are tight where the pooled medians would not tell
        stock = [1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4]
        r = self.pooled({"stock": stock, "fp64": [x / 1.1 for x in stock],
                         "auto": [x / 0.8 for x in stock],
                         "fp64-hsk": [x / (0.9 if i % 2 else 1.05) for i, x in enumerate(stock)]})
        by = {p["mode"]: p for p in r.cold_pairs()}
        self.assertEqual(set(by), {"fp64", "auto", "fp64-hsk"})  # plugin modes only
        self.assertEqual(by["fp64"]["pairs"], 8)
        self.assertAlmostEqual(by["fp64"]["median"], 1.1)
        self.assertEqual(by["fp64"]["verdict"], "above")
        self.assertEqual(by["auto"]["verdict"], "below")
        self.assertEqual(by["fp64-hsk"]["verdict"], "open")  # 0.9 and 1.05: the interval straddles
        text = "\n".join(r.cold_pairs_text())
        self.assertIn("Cold, round by round", text)
        self.assertIn("above: 1, open: 1, below: 1 of 3", text)

    def test_each_process_keeps_what_it_did_before_its_first_run(self):
        # the driver's input_s, init_s, assemble_s and host-speed probes stay per process beside
        # its cold total
        r = self.pooled({"stock": [1.0, 1.2, 1.4], "fp64": [0.9, 1.1, 1.3]})
        stock = next(rec for rec in r.records if rec["mode"] == "stock")
        self.assertEqual([p["input_s"] for p in stock["processes"]], [0.01, 0.02, 0.03])
        self.assertEqual({p["init_s"] for p in stock["processes"]}, {0.2})
        self.assertEqual({p["assemble_s"] for p in stock["processes"]}, {0.03})
        self.assertEqual([p["probe_cpu_s"] for p in stock["processes"]], [0.001, 0.002, 0.003])
        self.assertEqual({p["probe_api_s"] for p in stock["processes"]}, {0.0005})
        self.assertAlmostEqual(stock["processes"][1]["cold_total_s"], 1.2)

    def test_too_few_rounds_stay_open_and_one_round_has_no_section(self):
        r = self.pooled({"stock": [1.0, 1.0, 1.0], "fp64": [0.5, 0.5, 0.5]})
        self.assertEqual(r.cold_pairs()[0]["verdict"], "open")  # 3 pairs: no interval at 90%
        r.a.rounds = 1
        self.assertEqual(r.cold_pairs_text(), [])


class MatrixDir(unittest.TestCase):
    """--matrix-dir: a case file's matrices found elsewhere by their file name
    (bench_runner.relocate_matrices)."""

    def test_missing_files_are_taken_from_the_folder(self):
        with tempfile.TemporaryDirectory() as d:
            here = os.path.join(d, "here.mtx.gz")
            carried = os.path.join(d, "carried")
            os.mkdir(carried)
            for name in ("a.mtx.gz", "b.mtx"):
                open(os.path.join(carried, name), "w").close()
            open(here, "w").close()
            cases = [{"label": "a", "args": ["--matrix", "../elsewhere/a.mtx.gz", "--solver", "pcg"]},
                     {"label": "b", "args": ["--matrix=../elsewhere/b.mtx"]},
                     {"label": "here", "args": ["--matrix", here]},
                     {"label": "gone", "args": ["--matrix", "../elsewhere/gone.mtx"]},
                     {"label": "gen", "args": ["--problem", "laplace7", "--n", "10"]}]
            notes = bench_runner.relocate_matrices(cases, carried)
            self.assertEqual(cases[0]["args"], ["--matrix", os.path.join(carried, "a.mtx.gz"), "--solver", "pcg"])
            self.assertEqual(cases[1]["args"], ["--matrix=" + os.path.join(carried, "b.mtx")])
            self.assertEqual(cases[2]["args"], ["--matrix", here], "a file that exists stays where it is")
            self.assertEqual(cases[3]["args"], ["--matrix", "../elsewhere/gone.mtx"], "not in the folder: unchanged")
            self.assertEqual(cases[4]["args"], ["--problem", "laplace7", "--n", "10"])
            self.assertEqual(len(notes), 2)
            self.assertIn("2 matrix file(s)", notes[0])
            self.assertIn("gone.mtx", notes[1])
            self.assertEqual(bench_runner.relocate_matrices([{"label": "gen", "args": ["--problem", "x"]}], carried), [])


class RoundOrder(unittest.TestCase):
    """--rounds: the modes of a case turn from round to round (bench_runner.round_order)."""

    def test_each_mode_takes_each_place_once_in_as_many_rounds(self):
        modes = ["stock", "fp64", "auto"]
        orders = [bench_runner.round_order(modes, r) for r in range(6)]
        self.assertEqual(orders[0], modes, "round 0 keeps the order given")
        self.assertEqual(orders[1], ["fp64", "auto", "stock"])
        for r, o in enumerate(orders):
            self.assertEqual(sorted(o), sorted(modes), f"round {r}: every mode once")
        for place in range(3):
            self.assertEqual(sorted(o[place] for o in orders[:3]), sorted(modes), f"place {place}")
        self.assertEqual(orders[3], orders[0], "the turn repeats")
        self.assertEqual(bench_runner.round_order([], 4), [])
        self.assertEqual(bench_runner.round_order(["stock"], 7), ["stock"])


class ColdPairsPooled(unittest.TestCase):
    """bench/cold_pairs.py: the round-paired cold ratios of several run.sh outputs pooled."""

    @staticmethod
    def output(stock, modes, first_round=0):
        def rec(mode, amgt, colds):
            return {"case": "c", "mode": mode, "mode_label": mode, "amgt": amgt, "rounds": len(colds),
                    "processes": [{"round": first_round + k, "status": "ok", "cold_total_s": x}
                                  for k, x in enumerate(colds)]}
        return [rec("stock", "off", stock)] + [rec(m, "auto", c) for m, c in modes.items()]

    def test_four_rounds_each_are_open_and_eight_pooled_decide(self):
        import cold_pairs
        a = self.output([1.0, 1.1, 1.2, 1.3], {"auto": [0.9, 1.0, 1.05, 1.2]})
        b = self.output([2.0, 2.2, 2.4, 2.6], {"auto": [1.8, 2.0, 2.1, 2.4]})
        alone = cold_pairs.pooled([("a", a)])
        self.assertEqual((alone[0]["pairs"], alone[0]["verdict"]), (4, "open"))  # 4 pairs: no interval
        both = cold_pairs.pooled([("a", a), ("b", b)])
        self.assertEqual(len(both), 1)
        self.assertEqual(both[0]["files"], [4, 4])
        self.assertEqual(both[0]["pairs"], 8)
        self.assertEqual(both[0]["verdict"], "above")  # ratios 1.08-1.14: the 2nd smallest is >= 0.95
        # stock's other configurations are no plugin mode; a case filter keeps only its cases
        c = self.output([1.0] * 5, {"stock-default": [2.0] * 5, "fp64": [2.0] * 5})
        rows = cold_pairs.pooled([("c", c)])
        self.assertEqual([r["mode"] for r in rows], ["fp64"])
        self.assertEqual(rows[0]["verdict"], "below")
        self.assertEqual(cold_pairs.pooled([("c", c)], {"other"}), [])

    def test_a_plugin_mode_as_the_reference(self):
        import cold_pairs
        # auto-skl 4% faster than auto in every round, fp64 4% slower: against auto, 1.0 decides
        auto = [1.0, 1.2, 1.4, 1.6, 1.8, 2.0]
        c = self.output([1.0] * 6, {"auto": auto, "auto-skl": [x / 1.04 for x in auto],
                                     "fp64": [x * 1.04 for x in auto]})
        rows = {r["mode"]: r for r in cold_pairs.pooled([("c", c)], reference="auto")}
        self.assertEqual(set(rows), {"auto-skl", "fp64"}, "the reference is not paired with itself")
        self.assertAlmostEqual(rows["auto-skl"]["median"], 1.04)
        self.assertEqual(rows["auto-skl"]["verdict"], "above")
        self.assertEqual(rows["fp64"]["verdict"], "below", "0.96 is below 1.0, though above 0.95")
        self.assertEqual(cold_pairs.pooled([("c", c)], reference="auto-hsk"), [], "a reference not in the runs")

    def test_the_command_reads_files_and_refuses_one_without_rounds(self):
        import cold_pairs
        d = tempfile.mkdtemp()
        paths = []
        for k, colds in enumerate(([1.0, 1.1, 1.2, 1.3], [1.2, 1.0, 1.1, 1.4])):
            path = os.path.join(d, f"runs{k}.jsonl")
            write_runs(path, self.output(colds, {"auto": [x / 1.2 for x in colds]}))
            paths.append(path)
        out = os.path.join(d, "rows.json")
        self.assertEqual(cold_pairs.main(paths + ["--json", out]), 0)
        with open(out) as f:
            rows = json.load(f)
        self.assertEqual((rows[0]["pairs"], rows[0]["verdict"]), (8, "above"))
        self.assertAlmostEqual(rows[0]["median"], 1.2)
        flat = os.path.join(d, "flat.jsonl")
        with open(flat, "w") as f:
            f.write(json.dumps({"case": "c", "mode": "stock"}) + "\n")
        with self.assertRaises(SystemExit) as e:
            cold_pairs.main([flat])
        self.assertIn("no processes paired by round", str(e.exception))


class ColdPairsMeasure(unittest.TestCase):
    """bench/cold_pairs.py --measure: a mode whose first setup and solve are faster than stock's
    but whose assembly is slower (work moved from one to the other) is above 0.95 on the cold
    total and below it once the assembly counts."""

    @staticmethod
    def output(rounds=8, assemble_extra=0.012):
        def rec(mode, amgt, cold, assemble, init):
            procs = [{"round": k, "status": "ok", "cold_total_s": cold * (1 + 0.01 * k),
                      "assemble_s": assemble, "init_s": init} for k in range(rounds)]
            return {"case": "c", "mode": mode, "mode_label": mode, "amgt": amgt, "rounds": rounds,
                    "processes": procs}
        # the mode: 10 ms less in its first setup and solve, 12 ms more in the assembly
        return [rec("stock", "off", 0.060, 0.012, 0.140), rec("fp64", "fp64", 0.050, 0.012 + assemble_extra, 0.140)]

    def test_the_assembly_counts_in_the_wider_measures(self):
        import cold_pairs
        out = [("a", self.output())]
        cold = cold_pairs.pooled(out)[0]
        self.assertAlmostEqual(cold["median"], 1.2)
        self.assertEqual(cold["verdict"], "above")
        assembled = cold_pairs.pooled(out, measure="assembled")[0]
        self.assertAlmostEqual(assembled["median"], (0.060 + 0.012) / (0.050 + 0.024), delta=0.01)
        self.assertLess(assembled["high"], 1.0)  # slower than stock once the assembly counts
        self.assertEqual(assembled["verdict"], "above")  # 0.974-0.982: still above 0.95
        worse = cold_pairs.pooled([("a", self.output(assemble_extra=0.030))], measure="assembled")[0]
        self.assertEqual(worse["verdict"], "below")  # 72 ms against 92
        process = cold_pairs.pooled(out, measure="process")[0]
        self.assertAlmostEqual(process["median"], (0.060 + 0.012 + 0.140) / (0.050 + 0.024 + 0.140), delta=0.01)
        self.assertEqual(process["verdict"], "above")  # the same init dilutes the difference
        with self.assertRaises(ValueError):
            cold_pairs.pooled(out, measure="wall")

    def test_the_command_names_the_measure_and_refuses_what_it_cannot_pair(self):
        import cold_pairs
        d = tempfile.mkdtemp()
        path = os.path.join(d, "runs.jsonl")
        write_runs(path, self.output())
        js = os.path.join(d, "rows.json")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.assertEqual(cold_pairs.main([path, "--measure", "assembled", "--json", js]), 0)
        self.assertIn("stock's assembly + first setup + solve / the mode's", buf.getvalue())
        with open(js) as f:
            self.assertEqual(json.load(f)[0]["pairs"], 8)
        with self.assertRaises(SystemExit) as e:
            cold_pairs.main([path, "--measure", "assembled", "--covariate", "assemble_s"])
        self.assertIn("part of --measure assembled", str(e.exception))
        with self.assertRaises(ValueError):
            cold_pairs.adjusted([("a", self.output())], "init_s", measure="process")
        # outputs without the per-process times: no pair under the wider measures
        old = os.path.join(d, "old.jsonl")
        write_runs(old, ColdPairsPooled.output([1.0] * 6, {"auto": [0.9] * 6}))
        with self.assertRaises(SystemExit) as e:
            cold_pairs.main([old, "--measure", "process"])
        self.assertIn("older amgt-solve", str(e.exception))


class ColdPairsCutShort(unittest.TestCase):
    """A run.sh --rounds run stopped by a device call's limit leaves one record per process in
    runs.jsonl (pooled only at the end): cold_pairs groups them by case and mode and pairs them
    by round as it pairs a finished run's."""

    @staticmethod
    def process_records(rounds=6, failed_round=None):
        recs = []
        for k in range(rounds):
            for mode, amgt, cold in (("stock", "off", 0.060), ("fp64", "fp64", 0.050)):
                bad = mode == "fp64" and k == failed_round
                recs.append({"case": "c", "mode": mode, "mode_label": mode, "amgt": amgt, "round": k,
                             "status": "failed" if bad else "ok",
                             "result": None if bad else {"cold_total_s": cold, "assemble_s": 0.010, "init_s": 0.1}})
        # the first process of a second case, whose stock never ran before the stop
        recs.append({"case": "d", "mode": "fp64", "mode_label": "fp64", "amgt": "fp64", "round": 0,
                     "status": "ok", "result": {"cold_total_s": 0.05, "assemble_s": 0.01}})
        return recs

    def test_grouped_and_paired_by_round(self):
        import bench_report
        import cold_pairs
        grouped = bench_report.with_processes(self.process_records())
        self.assertEqual([(r["case"], r["mode"], len(r["processes"])) for r in grouped],
                         [("c", "stock", 6), ("c", "fp64", 6), ("d", "fp64", 1)])
        self.assertEqual([p["round"] for p in grouped[1]["processes"]], list(range(6)))
        d = tempfile.mkdtemp()
        path = write_runs(os.path.join(d, "runs.jsonl"), self.process_records(failed_round=2))
        rows = cold_pairs.pooled([(path, cold_pairs.load(path))], measure="assembled")
        self.assertEqual([(r["case"], r["mode"], r["pairs"]) for r in rows], [("c", "fp64", 5)])
        self.assertAlmostEqual(rows[0]["median"], 0.070 / 0.060)

    def test_pooled_records_are_kept_as_they_are(self):
        import bench_report
        pooled = ColdPairsMeasure.output()
        self.assertEqual(bench_report.with_processes(pooled), pooled)


class ColdPairsCovariate(unittest.TestCase):
    """bench/cold_pairs.py --covariate: the pairs adjusted for a per-process time that follows
    the process's speed."""

    @staticmethod
    def output(speeds, ratio, init_by_mode=None, rounds=8):
        # every process's cold total and init_s carry its speed; the mode's work is 1/ratio of
        # stock's; init_by_mode: a factor on the mode's init_s (a covariate the mode moves)
        def rec(mode, amgt, work, init_factor, offset):
            procs = []
            for k in range(rounds):
                speed = speeds[(k + offset) % len(speeds)]
                procs.append({"round": k, "status": "ok", "cold_total_s": work * speed,
                              "init_s": 0.2 * speed * init_factor,
                              "probe_api_s": 0.0004 * speed})  # the host-speed probe follows it too
            return {"case": "c", "mode": mode, "mode_label": mode, "amgt": amgt, "rounds": rounds,
                    "processes": procs}
        f = init_by_mode or 1.0
        return [rec("stock", "off", 1.0, 1.0, 0), rec("auto", "auto", 1.0 / ratio, f, 3)]

    def test_a_time_that_follows_the_speed_decides_what_the_raw_pairs_leave_open(self):
        import cold_pairs
        speeds = [1.0, 1.4, 0.8, 1.25, 0.9, 1.3, 0.75, 1.1]
        out = [("a", self.output(speeds, 1.02))]
        raw = cold_pairs.pooled(out)
        self.assertEqual(raw[0]["verdict"], "open")  # the speeds' spread hides 1.02
        rows, diag = cold_pairs.adjusted(out, "init_s")
        self.assertEqual(rows[0]["files"], [8])
        self.assertEqual(cold_pairs.adjusted(out + out, "init_s")[0][0]["files"], [8, 8])
        self.assertAlmostEqual(diag["slope"], 1.0)
        self.assertAlmostEqual(diag["correlation"], 1.0)
        self.assertAlmostEqual(rows[0]["median"], 1.02)
        self.assertEqual(rows[0]["verdict"], "above")
        self.assertAlmostEqual(diag["modes"]["auto"]["mean_x"], 0.0, delta=0.2)
        self.assertNotIn("depends on the mode", "\n".join(cold_pairs.covariate_lines(diag)))
        # the driver's host-speed probe is a covariate as well
        probe_rows, probe_diag = cold_pairs.adjusted(out, "probe_api_s")
        self.assertAlmostEqual(probe_rows[0]["median"], 1.02)
        self.assertEqual(probe_rows[0]["verdict"], "above")
        self.assertAlmostEqual(probe_diag["correlation"], 1.0)

    def test_a_time_the_mode_moves_is_named_and_one_missing_is_refused(self):
        import cold_pairs
        speeds = [1.0, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.0]
        rows, diag = cold_pairs.adjusted([("a", self.output(speeds, 1.1, init_by_mode=1.5))], "init_s")
        self.assertLess(diag["modes"]["auto"]["mean_x"], -0.3)  # log(1 / 1.5)
        self.assertIn("depends on the mode", "\n".join(cold_pairs.covariate_lines(diag)))
        with self.assertRaises(ValueError):
            cold_pairs.adjusted([("a", self.output(speeds, 1.1))], "wall_s")
        d = tempfile.mkdtemp()
        path = os.path.join(d, "old.jsonl")
        write_runs(path, ColdPairsPooled.output([1.0] * 6, {"auto": [0.9] * 6}))
        with self.assertRaises(SystemExit) as e:
            cold_pairs.main([path, "--covariate", "assemble_s"])
        self.assertIn("no process holds assemble_s", str(e.exception))
        # and with the times there, the command prints both tables and writes both
        new = os.path.join(d, "new.jsonl")
        write_runs(new, self.output([1.0, 1.4, 0.8, 1.25, 0.9, 1.3, 0.75, 1.1], 1.02))
        js = os.path.join(d, "rows.json")
        self.assertEqual(cold_pairs.main([new, "--covariate", "init_s", "--json", js]), 0)
        with open(js) as f:
            got = json.load(f)
        self.assertEqual(got["covariate"]["covariate"], "init_s")
        self.assertEqual(got["rows"][0]["verdict"], "above")
        # --interval t: the geometric means, their shape's line and the same verdict
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            self.assertEqual(cold_pairs.main([new, "--covariate", "init_s", "--interval", "t", "--json", js]), 0)
        self.assertIn("excess kurtosis", printed.getvalue())
        self.assertIn("geomean", printed.getvalue())
        with open(js) as f:
            got = json.load(f)
        self.assertAlmostEqual(got["rows"][0]["geomean"], 1.02)
        self.assertEqual(got["rows"][0]["verdict"], "above")
        # --heterogeneity: the between-case-modes lines, on the adjusted pairs, per mode and over all
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            self.assertEqual(cold_pairs.main([new, new, "--covariate", "init_s", "--interval", "t",
                                              "--heterogeneity"]), 0)
        text = printed.getvalue()
        self.assertIn("Between case-modes", text)
        self.assertIn("fewer than two case-modes", text)  # one case-mode: no between
        values = {}
        cold_pairs.adjusted([("a", self.output([1.0, 1.4, 0.8, 1.25, 0.9, 1.3, 0.75, 1.1], 1.02))], "init_s",
                            values=values)
        self.assertEqual(list(values), [("c", "auto")])
        for v in values[("c", "auto")]:
            self.assertAlmostEqual(v, 1.02)
        lines = cold_pairs.heterogeneity_lines({("c", "auto"): [1.0, 1.1, 0.9, 1.05], ("d", "auto"): [0.9, 1.0, 0.95],
                                                ("c", "fp64"): [1.0, 1.02]})
        self.assertTrue(any(line.strip().startswith("auto") and "2 case-modes" in line and "Q " in line
                            for line in lines), lines)
        self.assertTrue(any(line.strip().startswith("all") and "3 case-modes" in line for line in lines), lines)


class CaseFiles(unittest.TestCase):
    def test_large_cases(self):
        cases = bench_runner.read_cases_file(os.path.join(ROOT, "bench", "cases_large.tsv"))
        self.assertEqual([c["label"] for c in cases],
                         ["laplace7-n250", "laplace27-n200", "laplace7-n160", "systems3-n126"])
        for c in cases:
            self.assertEqual(c["args"][-2:], ["--solver", "pcg"], c)
            kind, n = c["args"][1], int(c["args"][3])
            self.assertEqual(c["label"], f"{kind}-n{n}")
        rows = matrix.generated_rows_nnz("systems3", 126)[0]
        self.assertLess(abs(rows - 6e6), 0.01 * 6e6)

    def test_1m_cases_are_the_generated_suite(self):
        cases = bench_runner.read_cases_file(os.path.join(ROOT, "bench", "cases_1m.tsv"))
        suite = matrix.suite_cases(os.path.join(ROOT, "data"), ["generated"], [1000000])
        self.assertEqual([c["label"] for c in cases], [c["label"] for c in suite])
        for c, s in zip(cases, suite):
            self.assertEqual(c["args"], s["args"] + ["--solver", "pcg"])



def step_record(case, mode, setups, solves, its, status="ok", frozen=0):
    """A record of a sequence (--steps): per-step setup and solve seconds and iterations."""
    m = bench_runner.MODES[mode]
    called = [1 if (k == 0 or not frozen) else 0 for k in range(len(setups))]
    resetups = sorted(x for k, x in enumerate(setups) if k >= 1 and called[k])
    mid = len(resetups) // 2
    res = {"setup_s": sum(setups), "solve_s": sorted(solves)[len(solves) // 2], "solves_total_s": sum(solves),
           "total_s": sum(setups) + sum(solves), "cold_setup_s": setups[0], "cold_solve_s": solves[0],
           "cold_total_s": setups[0] + solves[0], "rows": 1000, "nnz": 7000, "levels": 4,
           "iterations": its[-1], "rel_residual": 1e-9, "converged": status == "ok", "device": "cpu",
           "steps": len(setups), "drift": "dt", "frozen": frozen, "setup_calls": sum(called),
           "step_setup_s": setups, "step_solve_s": solves, "step_iterations": its, "step_setup_called": called,
           "first_setup_s": setups[0],
           "resetup_median_s": (resetups[mid] if len(resetups) % 2 else 0.5 * (resetups[mid - 1] + resetups[mid]))
           if resetups else None,
           "steps_setup_total_s": sum(setups), "steps_solve_total_s": sum(solves),
           "iterations_per_step_median": sorted(its)[len(its) // 2]}
    return {"case": case, "mode": mode, "mode_label": m["label"], "status": status, "result": res, "stats": None}


class Steps(unittest.TestCase):
    def test_modes_set_amgt_resetup_and_frozen(self):
        a = argparse.Namespace(gpu_build=0, solves=1, repeat=3, np=1, stats=False, plots=False,
                               out=tempfile.gettempdir(), steps=5)
        r = bench_runner.Runner(a)
        saved = os.environ.pop("AMGT_RESETUP", None)
        try:
            for mode, amgt, resetup in (("auto-resetup", "auto", "auto"), ("auto-galerkin", "auto", "galerkin"),
                                        ("fp64-resetup", "fp64", "auto")):
                env = r.env_for(mode, False)
                self.assertEqual((env["AMGT"], env["AMGT_RESETUP"]), (amgt, resetup), mode)
            # every other mode runs with the variable unset (off), a user's own included
            os.environ["AMGT_RESETUP"] = "galerkin"
            for mode in ("stock", "stock-frozen", "auto", "fp64"):
                self.assertNotIn("AMGT_RESETUP", r.env_for(mode, False), mode)
        finally:
            os.environ.pop("AMGT_RESETUP", None)
            if saved is not None:
                os.environ["AMGT_RESETUP"] = saved
        self.assertEqual(r.env_for("stock-frozen", False)["AMGT"], "off")
        self.assertEqual(bench_runner.Runner.mode_args(bench_runner.MODES["stock-frozen"])[-2:], ["--frozen", "1"])
        for mode in ("stock", "auto-resetup", "fp64"):
            self.assertNotIn("--frozen", bench_runner.Runner.mode_args(bench_runner.MODES[mode]))
        self.assertEqual(r.steps_args(), ["--steps", "5"])
        a.steps = 0
        self.assertEqual(r.steps_args(), [])
        self.assertIn("--steps", bench_runner.RESERVED)
        self.assertIn("--frozen", bench_runner.RESERVED)
        # CPU builds keep them (no GPU-only switch)
        self.assertEqual(bench_runner.parse_modes("stock,stock-frozen,auto-resetup", False)[0],
                         ["stock", "stock-frozen", "auto-resetup"])

    def steps_runner(self):
        a = argparse.Namespace(gpu_build=0, solves=1, repeat=1, np=1, stats=False, plots=False,
                               out=tempfile.gettempdir(), steps=3)
        r = bench_runner.Runner(a)
        r.records = [step_record("c", "stock", [1.0, 1.2, 0.8], [0.5, 0.5, 0.5], [10, 10, 12]),
                     step_record("c", "stock-frozen", [1.0, 0.0, 0.0], [0.5, 0.6, 0.9], [10, 12, 18], frozen=1),
                     step_record("c", "auto-resetup", [0.9, 0.3, 0.2], [0.4, 0.4, 0.4], [10, 11, 12])]
        r.derive()
        return r

    def test_ratios_against_stock_and_stock_frozen(self):
        r = self.steps_runner()
        rows = {x["mode"]: x for x in r.derive_steps()}
        # stock-frozen never is "stock best" (it keeps an old hierarchy)
        self.assertEqual(r.best["c"]["total"][1], "stock")
        rs = rows["auto-resetup"]
        self.assertAlmostEqual(rs["resetup_vs_stock_setup"], 0.25 / 1.0)  # median(0.3, 0.2) / median(1, 1.2, .8)
        self.assertAlmostEqual(rs["step_time_vs_stock"], 0.6 / 1.3)  # median of 1.3/1.5, .7/1.7, .6/1.3
        self.assertAlmostEqual(rs["total_vs_stock"], 2.6 / 4.5)
        self.assertAlmostEqual(rs["total_vs_frozen"], 2.6 / 3.0)
        self.assertAlmostEqual(rs["step_time_vs_frozen"], 1.3 / 1.5)  # median of 1.3/1.5, .7/.6, .6/.9
        self.assertAlmostEqual(rs["iterations_vs_stock"], 33 / 32)
        fr = rows["stock-frozen"]
        self.assertIsNone(fr["resetup_median_s"])
        self.assertIsNone(fr["resetup_vs_stock_setup"])
        self.assertAlmostEqual(fr["iterations_vs_stock"], 40 / 32)
        self.assertAlmostEqual(rows["stock"]["total_vs_stock"], 1.0)

    def test_per_step_table_in_the_summary(self):
        r = self.steps_runner()
        text = r.summary_text([])
        self.assertIn("Sequences of steps (--steps)", text)
        self.assertIn("c  (3 steps, drift dt)", text)
        lines = text.splitlines()
        head = next(i for i, l in enumerate(lines) if l.startswith("  step ") and "stock-frozen" in l)
        self.assertEqual(lines[head + 2].split(), ["0", "1000.0", "500.0", "10", "1000.0", "500.0", "10",
                                                   "900.0", "400.0", "10"])
        # stock-frozen's later steps call no setup: '-'
        self.assertEqual(lines[head + 3].split()[4:7], ["-", "600.0", "12"])
        self.assertIn("3 steps (drift dt): setup s = the sum of the setups", text)
        flat = r.flat(r.records[2])
        self.assertEqual(flat["steps"], 3)
        self.assertEqual(flat["step_iterations"], "10 11 12")

    def test_step_cases(self):
        cases = bench_runner.read_cases_file(os.path.join(ROOT, "bench", "cases_steps.tsv"))
        self.assertEqual([c["label"] for c in cases],
                         ["laplace7-n100-dt", "laplace27-n100-dt", "jump7-n100-dt", "jump7-n100-jump"])
        for c in cases:
            a = c["args"]
            self.assertEqual(a[a.index("--steps") + 1], "12", c)
            self.assertEqual(a[a.index("--drift") + 1], c["label"].rsplit("-", 1)[1], c)
            self.assertEqual(int(a[a.index("--n") + 1]), 100)
        large = bench_runner.read_cases_file(os.path.join(ROOT, "bench", "cases_steps_large.tsv"))
        self.assertEqual([c["label"] for c in large],
                         ["laplace7-n250-dt", "laplace27-n200-dt", "jump7-n200-dt", "jump7-n200-jump"])
        for c in large:
            self.assertEqual(c["args"][c["args"].index("--steps") + 1], "10", c)


if __name__ == "__main__":
    unittest.main()
