#!/usr/bin/env python3
"""bench/cold_rounds.py without a GPU, on a stand-in for run.sh that writes round-paired cold
totals of chosen ratios: a case leaves once every plugin mode is decided (above or below the
bound), the open ones go on; earlier batches resumed are pooled first; a deadline stops the batch
running (SIGINT) and keeps what it wrote; the batches' case lines are the file's cases (tab and
JSON lines alike); the cases decided on pairs adjusted for a covariate; a file without cases, or
none, is refused.

  python3 tests/scripts/test_cold_rounds_py.py [-v]
"""
import json
import os
import stat
import sys
import tempfile
import time
import unittest
from unittest import mock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import cold_rounds  # noqa: E402

# run.sh's stand-in: per case of --cases and mode of --modes, --rounds processes with stock's cold
# total 1.0 and the mode's 1 / ratio, the ratio of the case from FAKE_RATIOS (a list: taken in turn
# over the batches, counted in FAKE_STATE); the assembly 1.0 in stock and FAKE_ASSEMBLE (default
# 1.0) in the other modes; FAKE_SPEEDS (a list, default [1.0]): each process's speed, taken in turn
# over the processes (the mode's offset by 3 from stock's in a round), a factor on its cold total and
# on its probe_api_s (0.0002 at speed 1); FAKE_SLEEP: seconds to wait after writing
FAKE = r'''#!/usr/bin/env python3
import json, os, sys, time
a = sys.argv[1:]
get = lambda k: a[a.index(k) + 1]
cases = [json.loads(l)["label"] for l in open(get("--cases")) if l.strip()]
modes, rounds, out = get("--modes").split(","), int(get("--rounds")), get("--out")
ratios = json.loads(os.environ["FAKE_RATIOS"])
speeds = json.loads(os.environ.get("FAKE_SPEEDS", "[1.0]"))
state = os.environ["FAKE_STATE"]
n = int(open(state).read()) if os.path.exists(state) else 0
open(state, "w").write(str(n + rounds))
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "runs.jsonl"), "w") as f:
    for c in cases:
        seq = ratios[c]
        for m in modes:
            procs = []
            for k in range(rounds):
                r = seq[(n + k) % len(seq)]
                v = speeds[(n + k + (0 if m == "stock" else 3)) % len(speeds)]
                procs.append({"round": k, "status": "ok", "cold_total_s": v * (1.0 if m == "stock" else 1.0 / r),
                              "assemble_s": 1.0 if m == "stock" else float(os.environ.get("FAKE_ASSEMBLE", "1.0")),
                              "probe_api_s": 0.0002 * v})
            f.write(json.dumps({"case": c, "mode": m, "mode_label": m, "amgt": "off" if m == "stock" else m,
                                "rounds": rounds, "processes": procs}) + "\n")
time.sleep(float(os.environ.get("FAKE_SLEEP", "0")))
'''


class ColdRounds(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.runsh = os.path.join(self.dir, "run.sh")
        with open(self.runsh, "w") as f:
            f.write(FAKE)
        os.chmod(self.runsh, os.stat(self.runsh).st_mode | stat.S_IEXEC)
        self.cases = os.path.join(self.dir, "cases.tsv")
        with open(self.cases, "w") as f:
            f.write("# a comment\nfast\t--problem laplace7 --n 22\nedge\t--problem aniso7 --n 22\n"
                    '{"label": "slow", "args": ["--matrix", "m.mtx.gz"]}\n')
        os.environ["FAKE_STATE"] = os.path.join(self.dir, "state")
        os.environ["FAKE_RATIOS"] = json.dumps({"fast": [1.6], "edge": [0.9, 1.0], "slow": [0.8]})
        os.environ["FAKE_SLEEP"] = "0"
        os.environ.pop("FAKE_SPEEDS", None)

    def run_json(self, *args):
        """cold_rounds on this test's cases and stand-in with `args`; its --json rows."""
        js = os.path.join(self.dir, "rows.json")
        cold_rounds.main(["--cases", self.cases, "--out", os.path.join(self.dir, "out"), "--json", js,
                          "--runsh", self.runsh] + list(args))
        with open(js) as f:
            return json.load(f)

    def batch_cases(self, out, k):
        with open(os.path.join(out, f"batch{k}", "cases.tsv")) as f:
            return [json.loads(l)["label"] for l in f if l.strip()]

    def test_decided_cases_leave_and_the_open_one_goes_on(self):
        out = os.path.join(self.dir, "out")
        js = os.path.join(self.dir, "rows.json")
        rc = cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64,auto", "--batch", "2",
                               "--max-batches", "5", "--out", out, "--json", js, "--runsh", self.runsh])
        self.assertEqual(rc, 0)
        # 95%: six pairs decide; three batches of two rounds run every case, then only edge
        for k in (1, 2, 3):
            self.assertEqual(self.batch_cases(out, k), ["fast", "edge", "slow"], f"batch {k}")
        for k in (4, 5):
            self.assertEqual(self.batch_cases(out, k), ["edge"], f"batch {k}")
        with open(js) as f:
            got = json.load(f)
        rows = {(r["case"], r["mode"]): r for r in got["rows"]}
        self.assertEqual((rows[("fast", "fp64")]["verdict"], rows[("fast", "fp64")]["pairs"]), ("above", 6))
        self.assertEqual((rows[("slow", "auto")]["verdict"], rows[("slow", "auto")]["pairs"]), ("below", 6))
        self.assertEqual((rows[("edge", "auto")]["verdict"], rows[("edge", "auto")]["pairs"]), ("open", 10))
        self.assertAlmostEqual(rows[("edge", "auto")]["median"], 0.95)
        self.assertEqual(got["open_cases"], ["edge"])
        self.assertNotIn(("fast", "stock"), rows, "stock is the reference, not a row")

    def test_resumed_batches_count_and_nothing_runs_when_all_are_decided(self):
        first = os.path.join(self.dir, "first")
        os.environ["FAKE_RATIOS"] = json.dumps({"fast": [1.6], "edge": [1.3, 1.1], "slow": [0.8]})
        cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64", "--batch", "3", "--max-batches", "2",
                          "--out", first, "--runsh", self.runsh])
        resumed = [os.path.join(first, f"batch{k}", "run", "runs.jsonl") for k in (1, 2)]
        second = os.path.join(self.dir, "second")
        js = os.path.join(self.dir, "rows.json")
        cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64", "--out", second, "--json", js,
                          "--runsh", self.runsh, "--resume"] + resumed)
        self.assertFalse(os.path.exists(os.path.join(second, "batch1")), "every case was decided already")
        with open(js) as f:
            got = json.load(f)
        self.assertEqual((got["batches"], got["open_cases"]), (0, []))
        self.assertEqual({r["case"]: r["verdict"] for r in got["rows"]},
                         {"fast": "above", "edge": "above", "slow": "below"})

    def test_a_deadline_stops_the_batch_and_keeps_what_it_wrote(self):
        os.environ["FAKE_SLEEP"] = "60"
        out = os.path.join(self.dir, "out")
        js = os.path.join(self.dir, "rows.json")
        t0 = time.monotonic()
        cold_rounds.main(["--cases", self.cases, "--modes", "stock,auto", "--deadline", "8", "--out", out,
                          "--json", js, "--runsh", self.runsh])
        self.assertLess(time.monotonic() - t0, 40, "the batch was interrupted at the deadline")
        with open(js) as f:
            got = json.load(f)
        self.assertEqual(got["batches"], 1)
        self.assertEqual(sorted(r["pairs"] for r in got["rows"]), [2, 2, 2], "the interrupted batch's pairs")

    def test_the_batches_case_lines_are_the_files_cases(self):
        out = os.path.join(self.dir, "out")
        cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64", "--max-batches", "1", "--out", out,
                          "--runsh", self.runsh])
        with open(os.path.join(out, "batch1", "cases.tsv")) as f:
            got = [json.loads(l) for l in f if l.strip()]
        self.assertEqual([(c["label"], c["args"]) for c in got],
                         [("fast", ["--problem", "laplace7", "--n", "22"]), ("edge", ["--problem", "aniso7", "--n", "22"]),
                          ("slow", ["--matrix", "m.mtx.gz"])])

    def test_the_cases_are_decided_on_the_measure_asked_for(self):
        # fast: 1.6x on the first setup and solve, but its mode's assembly takes 3.0 against
        # stock's 1.0: (1 + 1) / (1 / 1.6 + 3) = 0.55 with the assembly counted
        with mock.patch.dict(os.environ, {"FAKE_ASSEMBLE": "3.0"}):
            got = self.run_json("--modes", "stock,fp64", "--max-batches", "3", "--measure", "assembled")
        self.assertEqual(got["measure"], "assembled")
        rows = {r["case"]: r for r in got["rows"]}
        self.assertEqual(rows["fast"]["verdict"], "below")
        self.assertAlmostEqual(rows["fast"]["median"], 2.0 / (1.0 / 1.6 + 3.0))

    def test_a_plugin_mode_as_the_reference(self):
        # fp64 and auto run alike in the stand-in: against fp64, auto's ratio is 1.0, decided
        # against 1.0 (not 0.95), and stock is no row
        got = self.run_json("--modes", "stock,fp64,auto", "--max-batches", "3", "--reference", "fp64")
        self.assertEqual({r["mode"] for r in got["rows"]}, {"auto"})
        self.assertEqual({r["verdict"] for r in got["rows"]}, {"above"})
        self.assertEqual({r["median"] for r in got["rows"]}, {1.0})
        with self.assertRaises(SystemExit):  # the reference must run
            cold_rounds.main(["--cases", self.cases, "--modes", "stock,auto", "--reference", "fp64",
                              "--runsh", self.runsh])
        with self.assertRaises(SystemExit):  # and something beside it
            cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64", "--reference", "fp64",
                              "--runsh", self.runsh])

    def test_the_cases_are_decided_on_the_pairs_adjusted_for_a_covariate(self):
        # every case 1.03x, the processes' speeds spread by 0.75-1.4: six pairs decide the adjusted
        # ratios (exactly 1.03) where the raw ones stay open
        speeds = [1.0, 1.4, 0.8, 1.25, 0.9, 1.3, 0.75, 1.1]
        with mock.patch.dict(os.environ, {"FAKE_SPEEDS": json.dumps(speeds),
                                          "FAKE_RATIOS": json.dumps({"fast": [1.03], "edge": [1.03], "slow": [1.03]})}):
            raw = self.run_json("--modes", "stock,fp64", "--max-batches", "3")
            adj = self.run_json("--modes", "stock,fp64", "--max-batches", "3", "--covariate", "probe_api_s")
        self.assertIn("open", {r["verdict"] for r in raw["rows"]})
        self.assertIsNone(raw["covariate"])
        self.assertEqual({r["verdict"] for r in adj["rows"]}, {"above"})
        for r in adj["rows"]:
            self.assertAlmostEqual(r["median"], 1.03)
        self.assertEqual(adj["open_cases"], [])
        self.assertAlmostEqual(adj["covariate"]["slope"], 1.0)
        with self.assertRaises(SystemExit):  # a covariate the measure holds
            cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64", "--measure", "assembled",
                              "--covariate", "assemble_s", "--runsh", self.runsh])

    def test_the_t_interval_decides_with_fewer_batches(self):
        # every case 1.04x; one process of eight runs 12% slower, so that one pair in six reads
        # 0.93 (and one 1.16): the order statistics' interval (its extremes at six pairs) stays
        # open, Student's t (geometric mean 1.04) decides at six pairs
        speeds = [1.0, 1.0, 1.0, 1.12, 1.0, 1.0, 1.0, 1.0]
        with mock.patch.dict(os.environ, {"FAKE_SPEEDS": json.dumps(speeds),
                                          "FAKE_RATIOS": json.dumps({"fast": [1.04], "edge": [1.04], "slow": [1.04]})}):
            med = self.run_json("--modes", "stock,fp64", "--max-batches", "3")
            t = self.run_json("--modes", "stock,fp64", "--max-batches", "3", "--interval", "t")
        self.assertEqual(med["interval"], "median")
        self.assertEqual(t["interval"], "t")
        self.assertIn("open", {r["verdict"] for r in med["rows"]})
        self.assertEqual({r["verdict"] for r in t["rows"]}, {"above"})
        self.assertEqual(t["open_cases"], [])
        self.assertIsNotNone(t["shape"]["skewness"])
        for r in t["rows"]:
            self.assertLess(r["pairs"], 8)
            self.assertGreater(r["geomean"], 1.0)

    def test_bad_input(self):
        empty = os.path.join(self.dir, "empty.tsv")
        with open(empty, "w") as f:
            f.write("# only a comment\n")
        with self.assertRaises(SystemExit):
            cold_rounds.main(["--cases", empty, "--runsh", self.runsh])  # no case
        with self.assertRaises(SystemExit) as e:
            cold_rounds.main(["--cases", os.path.join(self.dir, "gone.tsv"), "--runsh", self.runsh])
        self.assertIn("cannot read", str(e.exception))
        with self.assertRaises(SystemExit):
            cold_rounds.main(["--cases", self.cases, "--modes", "fp64,auto", "--runsh", self.runsh])  # no stock
        with self.assertRaises(SystemExit):
            cold_rounds.main(["--cases", self.cases, "--batch", "1", "--runsh", self.runsh])


if __name__ == "__main__":
    unittest.main()
