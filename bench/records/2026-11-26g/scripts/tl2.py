#!/usr/bin/env python3
# tl2.py TRACE SUBSTR SKIP BEFORE_US AFTER_US: host calls (R), kernels (K), copies (C), memsets (S)
# from BEFORE_US before the SKIP+1-th kernel named SUBSTR to AFTER_US after it (us, relative)
import sys, importlib.util
spec = importlib.util.spec_from_file_location("rn", ".carry/kprof/report_named.py")
rn = importlib.util.module_from_spec(spec); spec.loader.exec_module(rn)
recs = []
for l in rn.opener(sys.argv[1]):
    f = l.rstrip("\n").split("\t")
    if f[0] == "P": continue
    recs.append((f[0], f[1], int(f[2]), int(f[3])))
ks = sorted({r[1] for r in recs if r[0] == "K"}); dm = rn.demangle(ks)
nm = lambda r: rn.short(dm.get(r[1], r[1]))[:80] if r[0] == "K" else r[1][:50]
recs.sort(key=lambda r: r[2])
hits = [r[2] for r in recs if r[0] == "K" and sys.argv[2] in nm(r)]
t0 = hits[int(sys.argv[3])]
a, b = t0 - int(sys.argv[4]) * 1000, t0 + int(sys.argv[5]) * 1000
for r in recs:
    if a <= r[2] < b: print(f"{(r[2] - t0) / 1000:9.1f} {(r[3] - r[2]) / 1000:8.1f} {r[0]} {nm(r)}")
