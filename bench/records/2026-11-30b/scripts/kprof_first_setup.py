#!/usr/bin/env python3
"""Call 3's kprof traces of aniso7 n=31 (k_<mode>_<r>.tsv): per process the first setup's wall
time (HYPRE_ParCSRPCGSetup), the first solve's, the kernels launched in the setup and how many
of them are the plugin's, and the device images loaded in it (cuLibraryLoadData: calls, ms).

  python3 kprof_first_setup.py DIR"""
import glob
import os
import sys


def load(path):
    phases, kernels, calls = [], [], []
    for line in open(path):
        t = line.rstrip("\n").split("\t")
        if t[0] == "P":
            phases.append((t[1], int(t[2]), int(t[3])))
        elif t[0] == "K":
            kernels.append((t[1], int(t[2]), int(t[3])))
        elif t[0] in ("D", "R"):
            calls.append((t[1], int(t[2]), int(t[3])))
    return phases, kernels, calls


for path in sorted(glob.glob(os.path.join(sys.argv[1], "k_*_*.tsv"))):
    phases, kernels, calls = load(path)
    setup = next(p for p in phases if p[0] == "HYPRE_ParCSRPCGSetup")
    solve = next((p for p in phases if p[0] == "HYPRE_ParCSRPCGSolve"), None)
    a, b = setup[1], setup[2]
    ks = [k for k in kernels if a <= k[1] <= b]
    loads = [c for c in calls if c[0] == "cuLibraryLoadData" and a <= c[1] <= b]
    print(f"{os.path.basename(path):<16} setup {(b - a) / 1e6:5.1f} ms, solve "
          f"{(solve[2] - solve[1]) / 1e6 if solve else 0:5.1f} ms; kernels {len(ks)} "
          f"(the plugin's {sum('amgt' in k[0] for k in ks)}); image loads {len(loads)}, "
          f"{sum(c[2] - c[1] for c in loads) / 1e6:.2f} ms")
