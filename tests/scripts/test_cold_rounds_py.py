#!/usr/bin/env python3
"""bench/cold_rounds.py without a GPU, on a stand-in for run.sh that writes round-paired cold
totals of chosen ratios: a case leaves once every plugin mode is decided (above or below the
bound), the open ones go on; a batch runs per case the reference and its open modes, one run.sh
per set of open modes (--all-modes: every mode, one run.sh), and pools each run.sh's pairs once;
earlier batches resumed are pooled first; a deadline stops the run.sh running (SIGINT), keeps
what it wrote and starts no other; the batches' case lines are the file's cases (tab and JSON
lines alike); the cases decided on pairs adjusted for a covariate; a file without cases, or none,
is refused.

  python3 tests/scripts/test_cold_rounds_py.py [-v]
"""
import contextlib
import glob
import io
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
# total 1.0 and the mode's 1 / ratio, the ratio of the case from FAKE_RATIOS (a list, or a dict of
# lists by mode: taken in turn over the rounds of all calls, counted in FAKE_STATE); FAKE_CALLS: a
# file each call appends its arguments and cases to (a JSON line); the assembly 1.0 in stock and
# FAKE_ASSEMBLE (default 1.0) in the other modes; FAKE_SPEEDS (a list, default [1.0]): each
# process's speed, taken in turn over the processes (the mode's offset by 3 from stock's in a
# round), a factor on its cold total and on its probe_api_s (0.0002 at speed 1); FAKE_SLEEP:
# seconds to wait after writing
FAKE = r'''#!/usr/bin/env python3
import json, os, sys, time
a = sys.argv[1:]
get = lambda k: a[a.index(k) + 1]
cases = [json.loads(l)["label"] for l in open(get("--cases")) if l.strip()]
modes, rounds, out = get("--modes").split(","), int(get("--rounds")), get("--out")
if os.environ.get("FAKE_CALLS"):
    with open(os.environ["FAKE_CALLS"], "a") as f:
        f.write(json.dumps({"argv": a, "cases": cases}) + "\n")
ratios = json.loads(os.environ["FAKE_RATIOS"])
speeds = json.loads(os.environ.get("FAKE_SPEEDS", "[1.0]"))
state = os.environ["FAKE_STATE"]
n = int(open(state).read()) if os.path.exists(state) else 0
open(state, "w").write(str(n + rounds))
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "runs.jsonl"), "w") as f:
    for c in cases:
        for m in modes:
            seq = ratios[c].get(m, [1.0]) if isinstance(ratios[c], dict) else ratios[c]
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
        os.environ["FAKE_CALLS"] = os.path.join(self.dir, "calls.jsonl")
        os.environ.pop("FAKE_SPEEDS", None)

    def run_json(self, *args):
        """cold_rounds on this test's cases and stand-in with `args`; its --json rows."""
        js = os.path.join(self.dir, "rows.json")
        cold_rounds.main(["--cases", self.cases, "--out", os.path.join(self.dir, "out"), "--json", js,
                          "--runsh", self.runsh] + list(args))
        with open(js) as f:
            return json.load(f)

    def batch_cases(self, out, k, group=1):
        with open(os.path.join(out, f"batch{k}", str(group), "cases.tsv")) as f:
            return [json.loads(l)["label"] for l in f if l.strip()]

    def calls(self):
        """The stand-in's calls: (--modes, cases, --out relative to the test's folder)."""
        with open(os.environ["FAKE_CALLS"]) as f:
            got = [json.loads(l) for l in f if l.strip()]
        get = lambda c, k: c["argv"][c["argv"].index(k) + 1]
        return [(get(c, "--modes"), c["cases"], os.path.relpath(get(c, "--out"), self.dir)) for c in got]

    @staticmethod
    def every_case(ratio, speeds):
        """The stand-in with every case at `ratio` and the processes at `speeds` in turn."""
        return mock.patch.dict(os.environ, {"FAKE_SPEEDS": json.dumps(speeds),
                                            "FAKE_RATIOS": json.dumps({c: [ratio] for c in ("fast", "edge", "slow")})})

    def mixed(self):
        """Ratios by mode: fast's fp64 and slow's auto decide after three batches of two rounds,
        their other modes and both of edge's stay open (0.9 and 1.0 in turn)."""
        os.environ["FAKE_RATIOS"] = json.dumps({"fast": {"fp64": [1.6], "auto": [0.9, 1.0]},
                                                "edge": [0.9, 1.0],
                                                "slow": {"fp64": [0.9, 1.0], "auto": [0.8]}})

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

    def test_a_batch_runs_each_case_s_open_modes_in_groups(self):
        self.mixed()
        got = self.run_json("--modes", "stock,fp64,auto", "--max-batches", "5")
        every = ("stock,fp64,auto", ["fast", "edge", "slow"])
        calls = self.calls()
        self.assertEqual(calls[:3], [every + (f"out/batch{k}/1/run",) for k in (1, 2, 3)])
        # then fast runs auto alone, edge both modes, slow fp64 alone: three run.sh a batch
        self.assertEqual(calls[3:], [(m, cs, f"out/batch{k}/{g}/run") for k in (4, 5) for g, (m, cs) in
                                     enumerate([("stock,auto", ["fast"]), ("stock,fp64,auto", ["edge"]),
                                                ("stock,fp64", ["slow"])], 1)])
        self.assertEqual(self.batch_cases(os.path.join(self.dir, "out"), 5, 2), ["edge"])
        rows = {(r["case"], r["mode"]): (r["verdict"], r["pairs"]) for r in got["rows"]}
        self.assertEqual(rows, {("fast", "fp64"): ("above", 6), ("fast", "auto"): ("open", 10),
                                ("edge", "fp64"): ("open", 10), ("edge", "auto"): ("open", 10),
                                ("slow", "fp64"): ("open", 10), ("slow", "auto"): ("below", 6)})
        self.assertEqual((got["batches"], got["open_cases"]), (5, ["fast", "edge", "slow"]))

    def test_all_modes_runs_every_mode_every_batch(self):
        self.mixed()
        got = self.run_json("--modes", "stock,fp64,auto", "--max-batches", "5", "--all-modes")
        self.assertEqual(self.calls(), [("stock,fp64,auto", ["fast", "edge", "slow"], f"out/batch{k}/1/run")
                                        for k in range(1, 6)])
        rows = {(r["case"], r["mode"]): (r["verdict"], r["pairs"]) for r in got["rows"]}
        # the decided modes ran again: their later pairs pool with the rest and keep the verdict
        self.assertEqual(rows[("fast", "fp64")], ("above", 10))
        self.assertEqual(rows[("slow", "auto")], ("below", 10))
        self.assertEqual({v for v in rows.values()} - {("above", 10), ("below", 10)}, {("open", 10)})

    def test_the_pooled_pairs_are_the_groups_runs(self):
        # the rows are those of every run.sh's runs.jsonl pooled once (bench/cold_pairs.py), each
        # plugin process one pair, and a later call resuming them all pools the same
        self.mixed()
        for extra in ([], ["--all-modes"]):
            with self.subTest(extra=extra):
                out = os.path.join(self.dir, "out" + "".join(extra))
                js = os.path.join(self.dir, "rows.json")
                cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64,auto", "--max-batches", "5",
                                  "--out", out, "--json", js, "--runsh", self.runsh] + extra)
                with open(js) as f:
                    got = {(r["case"], r["mode"]): r for r in json.load(f)["rows"]}
                runs = sorted(glob.glob(os.path.join(out, "batch*", "*", "run", "runs.jsonl")))
                self.assertEqual(len(runs), 5 if extra else 9)
                outputs = [(p, cold_rounds.cold_pairs.load(p)) for p in runs]
                want = {(r["case"], r["mode"]): r for r in cold_rounds.cold_pairs.pooled(outputs, coverage=0.95)}
                self.assertEqual({k: (r["pairs"], r["verdict"], r["median"]) for k, r in got.items()},
                                 {k: (r["pairs"], r["verdict"], r["median"]) for k, r in want.items()})
                procs = sum(len(r["processes"]) for _, rs in outputs for r in rs if r["mode"] != "stock")
                self.assertEqual(sum(r["pairs"] for r in got.values()), procs)
                self.assertEqual(sum(r["pairs"] for r in got.values()), 60 if extra else 52)
                again = os.path.join(self.dir, "again.json")
                cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64,auto", "--deadline", "1",
                                  "--out", os.path.join(self.dir, "again"), "--json", again, "--runsh", self.runsh,
                                  "--resume"] + runs)
                with open(again) as f:
                    resumed = json.load(f)
                self.assertEqual(resumed["batches"], 0)
                self.assertEqual({(r["case"], r["mode"]): (r["pairs"], r["verdict"]) for r in resumed["rows"]},
                                 {k: (r["pairs"], r["verdict"]) for k, r in got.items()})

    def test_resumed_batches_count_and_nothing_runs_when_all_are_decided(self):
        first = os.path.join(self.dir, "first")
        os.environ["FAKE_RATIOS"] = json.dumps({"fast": [1.6], "edge": [1.3, 1.1], "slow": [0.8]})
        cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64", "--batch", "3", "--max-batches", "2",
                          "--out", first, "--runsh", self.runsh])
        resumed = sorted(glob.glob(os.path.join(first, "batch*", "*", "run", "runs.jsonl")))
        self.assertEqual(len(resumed), 2, "one run.sh a batch")
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

    def test_a_deadline_starts_no_other_group(self):
        # three groups are open after three batches; the first runs past the deadline and is
        # stopped, the other two do not start
        self.mixed()
        first = os.path.join(self.dir, "first")
        cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64,auto", "--max-batches", "3", "--out", first,
                          "--runsh", self.runsh])
        os.environ["FAKE_SLEEP"] = "60"
        js = os.path.join(self.dir, "rows.json")
        t0 = time.monotonic()
        cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64,auto", "--deadline", "8",
                          "--out", os.path.join(self.dir, "out"), "--json", js, "--runsh", self.runsh, "--resume"]
                         + sorted(glob.glob(os.path.join(first, "batch*", "*", "run", "runs.jsonl"))))
        self.assertLess(time.monotonic() - t0, 40)
        self.assertEqual([c[2] for c in self.calls()[3:]], ["out/batch1/1/run"])
        with open(js) as f:
            got = json.load(f)
        self.assertEqual({(r["case"], r["mode"]): r["pairs"] for r in got["rows"]},
                         {("fast", "fp64"): 6, ("fast", "auto"): 8, ("edge", "fp64"): 6, ("edge", "auto"): 6,
                          ("slow", "fp64"): 6, ("slow", "auto"): 6})

    def test_the_batches_case_lines_are_the_files_cases(self):
        out = os.path.join(self.dir, "out")
        cold_rounds.main(["--cases", self.cases, "--modes", "stock,fp64", "--max-batches", "1", "--out", out,
                          "--runsh", self.runsh])
        with open(os.path.join(out, "batch1", "1", "cases.tsv")) as f:
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
        with self.every_case(1.03, speeds):
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
        with self.every_case(1.04, speeds):
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

    def test_heterogeneity_lines_after_the_table(self):
        # fast at 1.6x, slow at 0.8x, edge between: the case-modes differ far beyond their pairs'
        # spread, and the lines say so (per mode and over all); without the option, no such lines
        speeds = [1.0, 1.1, 0.95, 1.05, 0.9, 1.0, 1.08, 0.97]
        with mock.patch.dict(os.environ, {"FAKE_SPEEDS": json.dumps(speeds)}):
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                self.run_json("--modes", "stock,fp64,auto", "--max-batches", "2", "--interval", "t",
                              "--heterogeneity")
            with contextlib.redirect_stdout(io.StringIO()) as plain:
                self.run_json("--modes", "stock,fp64,auto", "--max-batches", "2", "--interval", "t")
        text = printed.getvalue()
        self.assertIn("Between case-modes", text)
        lines = [l.split() for l in text.splitlines() if l.strip().startswith(("fp64 ", "auto ", "all "))
                 and "case-modes:" in l]
        self.assertEqual([l[0] for l in lines], ["fp64", "auto", "all"])
        self.assertEqual([int(l[1]) for l in lines], [3, 3, 6])
        for l in lines:
            p = float(l[l.index("(p") + 1].rstrip("),"))
            self.assertLess(p, 0.01, l)  # 1.6 against 0.8: not one ratio
        self.assertNotIn("Between case-modes", plain.getvalue())

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
