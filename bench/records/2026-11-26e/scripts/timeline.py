#!/usr/bin/env python3
# timeline.py TRACE KERNEL_SUBSTR [N] [SKIP]: the records (host API R, kernels K, copies C, memsets S) from
# 40 us before the SKIP+1-th launch of a kernel whose short name contains KERNEL_SUBSTR until the next one;
# N windows. Times in us relative to the window start.
import sys, importlib.util
spec = importlib.util.spec_from_file_location("rn", ".carry/kprof/report_named.py")
rn = importlib.util.module_from_spec(spec); spec.loader.exec_module(rn)
recs = []
for l in rn.opener(sys.argv[1]):
    f = l.rstrip("\n").split("\t")
    if f[0] == "P": continue
    recs.append((f[0], f[1], int(f[2]), int(f[3])))
ks = sorted({r[1] for r in recs if r[0] == "K"}); dm = rn.demangle(ks)
nm = lambda r: rn.short(dm.get(r[1], r[1]))[:90] if r[0] == "K" else r[1][:60]
recs.sort(key=lambda r: r[2])
sub = sys.argv[2]; N = int(sys.argv[3]) if len(sys.argv) > 3 else 2; skip = int(sys.argv[4]) if len(sys.argv) > 4 else 0
hits = [r[2] for r in recs if r[0] == "K" and sub in nm(r)]
# a kernel's start is GPU time; the launch call that issued it comes earlier: start the window at the
# first host call after the previous hit's window, approximated as 40 us before the *launch* (find the
# R record cudaLaunchKernel closest before)
for w in range(skip, min(skip + N, len(hits) - 1)):
    t0 = hits[w]; t1 = hits[w + 1]
    # window: from the host call 400 us before the kernel until the next hit
    rs = [r for r in recs if t0 - 60 * 1000 <= r[2] < t1]
    # keep from the last sync before t0's launch
    print(f"=== window {w}: {sub} at {t0}, next at {(t1 - t0) / 1000:.1f} us later")
    base = rs[0][2]
    for r in rs:
        print(f"{(r[2] - base) / 1000:9.1f} {(r[3] - r[2]) / 1000:8.1f} {r[0]} {nm(r)}")
