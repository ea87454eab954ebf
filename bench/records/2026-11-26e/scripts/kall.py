#!/usr/bin/env python3
# sum every kernel record of a kprof trace by (short, demangled) name, whatever the phase
import sys, collections, importlib.util
spec = importlib.util.spec_from_file_location("rn", sys.argv[2] if len(sys.argv) > 2 else ".carry/kprof/report_named.py")
rn = importlib.util.module_from_spec(spec); spec.loader.exec_module(rn)
recs = [l.rstrip("\n").split("\t") for l in rn.opener(sys.argv[1])]
ks = [r for r in recs if r[0] == "K"]
dm = rn.demangle(sorted({r[1] for r in ks}))
t = collections.Counter(); n = collections.Counter()
for r in ks:
    s = rn.short(dm.get(r[1], r[1])); t[s] += (int(r[3]) - int(r[2])) / 1e6; n[s] += 1
for k, v in t.most_common(45): print(f"{v:10.3f} ms {n[k]:6d}x [{rn.cat(k)}] {k[:150]}")
