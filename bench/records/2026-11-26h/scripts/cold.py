#!/usr/bin/env python3
# cold.py TRACE: the first two BoomerAMG setups of a kprof trace: wall, runtime/driver API time by
# call, kernels first launched inside each (with the launch call's duration: lazy loading shows
# there), and the plugin's kernels that ran before the first setup (the preload)
import sys, importlib.util, collections
spec = importlib.util.spec_from_file_location("rn", ".carry/kprof/report_named.py")
rn = importlib.util.module_from_spec(spec); spec.loader.exec_module(rn)
ph, recs = [], []
for l in rn.opener(sys.argv[1]):
    f = l.rstrip("\n").split("\t")
    if f[0] == "P": ph.append((f[1], int(f[2]), int(f[3])))
    else: recs.append((f[0], f[1], int(f[2]), int(f[3])))
ks = sorted({r[1] for r in recs if r[0] == "K"}); dm = rn.demangle(ks)
nm = lambda r: rn.short(dm.get(r[1], r[1]))[:100]
recs.sort(key=lambda r: r[2])
setups = sorted([p for p in ph if "BoomerAMGSetup" in p[0]], key=lambda p: p[1])
first = {}
for r in recs:
    if r[0] == "K" and r[1] not in first: first[r[1]] = r[2]
launches = [r for r in recs if r[0] in ("R", "D") and "aunch" in r[1]]
import bisect
lstarts = [r[2] for r in launches]
def launch_of(t):
    i = bisect.bisect_right(lstarts, t) - 1
    return launches[i] if i >= 0 else None
if setups:
    s0 = setups[0][1]
    pre = [r for r in recs if r[0] == "K" and r[2] < s0 and "amgt" in nm(r)]
    print(f"plugin kernels before the first setup: {len(pre)}" + (f", last ends {(s0 - max(r[3] for r in pre)) / 1e6:.2f} ms before it" if pre else ""))
    during = [r for r in recs if r[0] == "K" and s0 <= r[2] < setups[0][2] and "amgt" in nm(r)]
for i, (name, a, b) in enumerate(setups[:2]):
    api = collections.defaultdict(lambda: [0, 0])
    for r in recs:
        if r[0] in ("R", "D") and a <= r[2] < b:
            api[r[1]][0] += r[3] - r[2]; api[r[1]][1] += 1
    new = [(n, t) for n, t in first.items() if a <= t < b]
    lat = []
    for n, t in new:
        L = launch_of(t)
        lat.append(((L[3] - L[2]) / 1e3 if L else 0.0, rn.short(dm.get(n, n))[:110]))
    lat.sort(reverse=True)
    tot = sum(x for x, _ in lat)
    print(f"== setup {i} ({name}): wall {(b - a) / 1e6:.2f} ms; kernels first launched here: {len(new)}, their launch calls {tot / 1e3:.2f} ms")
    print("   API: " + ", ".join(f"{k} {v[0] / 1e6:.2f} ms/{v[1]}x" for k, v in sorted(api.items(), key=lambda kv: -kv[1][0])[:8]))
    for x, n in lat[:int(sys.argv[2]) if len(sys.argv) > 2 else 12]:
        print(f"   {x:8.1f} us  {n}")
    amgt_new = [n for _, n in lat if "amgt" in n]
    print(f"   plugin kernels first launched here: {len(amgt_new)}, launch calls {sum(x for x, n in lat if 'amgt' in n) / 1e3:.2f} ms")
