#!/usr/bin/env python3
"""bench/ij_compare.py without a GPU: each mode's environment (run.sh's variables of the mode,
a bare AMGT value otherwise; a caller's own AMGT_ variables are not carried in) and the parse of
ij's timing output.

  python3 tests/scripts/test_ij_compare_py.py [-v]
"""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import ij_compare as ij  # noqa: E402


class ModeEnv(unittest.TestCase):
    def setUp(self):
        self.saved = dict(os.environ)
        os.environ["AMGT"] = "mixed"
        os.environ["AMGT_SETUP_KERNELS"] = "1"
        os.environ["AMGT_STATS"] = "1"

    def tearDown(self):
        os.environ.clear()
        os.environ.update(self.saved)

    def test_suffixes(self):
        want = {"fp64-skl": ("fp64", "large"), "auto-skl": ("auto", "large"), "auto-hsk": ("auto", "0"),
                "fp64-sk": ("fp64", "1")}
        for mode, (amgt, kernels) in want.items():
            env = ij.mode_env(mode)
            self.assertEqual((env["AMGT"], env["AMGT_SETUP_KERNELS"]), (amgt, kernels), mode)
            self.assertNotIn("AMGT_STATS", env)

    def test_plain_and_unset(self):
        env = ij.mode_env("auto")
        self.assertEqual(env["AMGT"], "auto")
        self.assertNotIn("AMGT_SETUP_KERNELS", env)  # the caller's own switch is not carried in
        self.assertEqual(ij.mode_env("fp32")["AMGT"], "fp32")  # a name run.sh does not know: a bare AMGT value
        self.assertNotIn("AMGT_SETUP_KERNELS", ij.mode_env("fp32"))
        env = ij.mode_env("unset")
        self.assertNotIn("AMGT", env)
        self.assertNotIn("AMGT_SETUP_KERNELS", env)


class Parse(unittest.TestCase):
    PASS = """Setup phase times:
=============================================
 PCG Setup:
  wall clock time = {setup} seconds
Solve phase times:
=============================================
 PCG Solve:
  wall clock time = {solve} seconds
"""

    def test_two_passes(self):
        text = (self.PASS.format(setup="0.040000", solve="0.020000") + "Iterations = 21\n" +
                self.PASS.format(setup="0.030000", solve="0.010000") +
                "Iterations = 21\nFinal Relative Residual Norm = 5.1e-09\n")
        r = ij.parse(text)
        self.assertEqual((r["cold_setup"], r["cold_solve"], r["setup"], r["solve"]), (0.04, 0.02, 0.03, 0.01))
        self.assertEqual(r["iterations"], 21)
        self.assertAlmostEqual(r["residual"], 5.1e-9)

    def test_one_pass_or_no_residual_is_none(self):
        one = self.PASS.format(setup="0.04", solve="0.02") + "Iterations = 21\nFinal Relative Residual Norm = 1e-9\n"
        self.assertIsNone(ij.parse(one))
        two = self.PASS.format(setup="0.04", solve="0.02") * 2 + "Iterations = 21\n"
        self.assertIsNone(ij.parse(two))


if __name__ == "__main__":
    unittest.main()
