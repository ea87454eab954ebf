#!/usr/bin/env python3
"""bench/ncu_kernel_table.py (the per-kernel table of an Nsight Compute report) without a GPU:
reports written here in ncu's wide raw form (a row of units under the header, digits grouped
with commas, SI-prefixed units) and its long form (a row a metric) give the same table; launches
group by function name; bytes, times, the fraction of the peak and the bound come out as
computed by hand; a missing metric or an unknown unit is a clear error.

  python3 tests/scripts/test_ncu_kernel_table_py.py [-v]
"""
import csv
import io
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "bench", "ncu_kernel_table.py")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import ncu_kernel_table as nkt  # noqa: E402

METRICS = ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
           "sm__throughput.avg.pct_of_peak_sustained_elapsed",
           "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"]

# (kernel name as ncu prints it, time us, read MB, write MB, SM %, DRAM %)
LAUNCHES = [
    ("void hypreGPUKernel_CSRExtractDiag<double>(int, int *, double *)", 600.0, 300.0, 60.0, 10.0, 20.0),
    ("void hypreGPUKernel_CSRExtractDiag<double>(int, int *, double *)", 400.0, 200.0, 40.0, 10.0, 25.0),
    ("void cub::DeviceSelectSweepKernel<cub::Policy<(int)128>, int *>(int *, int)", 100.0, 240.0, 30.0, 30.0, 90.0),
    ("hypre_spgemm_numeric", 2000.0, 1000.0, 500.0, 75.0, 40.0),
]


def wide_csv():
    f = io.StringIO()
    w = csv.writer(f, quoting=csv.QUOTE_ALL)
    w.writerow(["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream"] + METRICS)
    w.writerow(["", "", "", "", "", "", ""] + ["usecond", "Mbyte", "Kbyte", "%", "%"])
    for i, (k, us, rd, wr, sm, dr) in enumerate(LAUNCHES):
        w.writerow([str(i), "42", "amgt-solve", "host", k, "1", "7",
                    f"{us:,.1f}", f"{rd:,.1f}", f"{wr * 1000:,.0f}", f"{sm}", f"{dr}"])
    return "==PROF== Connected to process 42\n" + f.getvalue()


def long_csv():
    f = io.StringIO()
    w = csv.writer(f, quoting=csv.QUOTE_ALL)
    w.writerow(["ID", "Process ID", "Kernel Name", "Section Name", "Metric Name", "Metric Unit", "Metric Value"])
    for i, (k, us, rd, wr, sm, dr) in enumerate(LAUNCHES):
        for m, u, v in zip(METRICS, ["nsecond", "byte", "byte", "%", "%"],
                           [us * 1e3, rd * 1e6, wr * 1e6, sm, dr]):
            w.writerow([str(i), "42", k, "Command line profiler metrics", m, u, f"{v:,.2f}"])
    return f.getvalue()


class NcuKernelTable(unittest.TestCase):
    def write(self, d, name, text):
        p = os.path.join(d, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def check_rows(self, rows, total):
        self.assertAlmostEqual(total, 3100e-6, places=9)
        by = {r["kernel"]: r for r in rows}
        self.assertEqual(set(by), {"hypreGPUKernel_CSRExtractDiag", "cub::DeviceSelectSweepKernel",
                                   "hypre_spgemm_numeric"})
        self.assertEqual([r["kernel"] for r in rows][0], "hypre_spgemm_numeric", "longest first")
        d = by["hypreGPUKernel_CSRExtractDiag"]
        self.assertEqual(d["calls"], 2)
        self.assertAlmostEqual(d["ms"], 1.0)
        self.assertAlmostEqual(d["mb"], 600.0)                  # 300 + 60 + 200 + 40
        self.assertAlmostEqual(d["gbs"], 600.0)                 # 600 MB in 1 ms
        self.assertAlmostEqual(d["peak"], 0.2)                  # of 3.0 TB/s
        self.assertAlmostEqual(d["dram"], (20 * 600 + 25 * 400) / 1000)  # time-weighted
        self.assertEqual(d["bound"], "latency")
        self.assertEqual(by["cub::DeviceSelectSweepKernel"]["bound"], "dram")
        self.assertAlmostEqual(by["cub::DeviceSelectSweepKernel"]["peak"], 270e6 / 100e-6 / 3e12)
        self.assertEqual(by["hypre_spgemm_numeric"]["bound"], "sm")
        self.assertAlmostEqual(by["hypre_spgemm_numeric"]["share"], 2000 / 3100)

    def test_wide_and_long_forms_give_the_same_table(self):
        with tempfile.TemporaryDirectory() as d:
            for text in (wide_csv(), long_csv()):
                rows, total = nkt.table(nkt.read_launches(self.write(d, "r.csv", text)), 3.0e12)
                self.check_rows(rows, total)

    def test_the_script_prints_text_and_markdown(self):
        with tempfile.TemporaryDirectory() as d:
            p = self.write(d, "laplace7-n250.csv", wide_csv())
            r = subprocess.run([sys.executable, SCRIPT, p], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("laplace7-n250: 3 kernels, 4 launches, 3.10 ms", r.stdout)
            self.assertRegex(r.stdout, r"hypreGPUKernel_CSRExtractDiag\s+2\s+1\.000\s+32\.3%\s+600\.0\s+600\s+0\.20")
            r = subprocess.run([sys.executable, SCRIPT, "--markdown", "--top", "1", p], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("| `hypre_spgemm_numeric` | 1 | 2.000 | 64.5% |", r.stdout)
            self.assertIn("... 2 more kernels, 1.100 ms", r.stdout)

    def test_bad_reports_are_clear_errors(self):
        with tempfile.TemporaryDirectory() as d:
            no_metric = wide_csv().replace("dram__bytes_write.sum", "something_else")
            r = subprocess.run([sys.executable, SCRIPT, self.write(d, "a.csv", no_metric)],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("metrics missing from the report: dram__bytes_write.sum", r.stderr)
            bad_unit = wide_csv().replace('"Mbyte"', '"furlong"')
            r = subprocess.run([sys.executable, SCRIPT, self.write(d, "b.csv", bad_unit)],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("unknown unit 'furlong'", r.stderr)
            r = subprocess.run([sys.executable, SCRIPT, self.write(d, "c.csv", "")], capture_output=True, text=True)
            self.assertEqual(r.returncode, 1)
            self.assertIn("empty report", r.stderr)

    def test_names(self):
        self.assertEqual(nkt.base_name("void ns::k<int, (int)4>(int *, double)"), "ns::k")
        self.assertEqual(nkt.base_name("hypre_spgemm_symbolic"), "hypre_spgemm_symbolic")
        self.assertEqual(nkt.base_name("void f<A<B>, C>(D<E>)"), "f")


if __name__ == "__main__":
    unittest.main()
