#!/bin/bash
# record 2026-11-26e, device call 6: final code (lean opt-in, AMGT_SPGEMM=lean knob): GPU and integration tests; lean in real 1M setups vs auto's rule
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 200 ctest -L integration -j 4 --output-on-failure) > $OUT/ctest_integration.log 2>&1; echo "ctest integration rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_integration.log | head
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
kp() { # case n env tag
  env $3 LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv timeout 60 $S --problem $1 --n $2 --solver pcg --repeat 1 > /dev/null 2>&1
  echo "## $1 $2 $3" >> $OUT/kprof_$4.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase AMGSetup --top 40 | awk '/== phase/{n++} n==2' >> $OUT/kprof_$4.txt 2>&1
}
for e in "AMGT=fp64" "AMGT=fp64 AMGT_SPGEMM=lean"; do kp laplace7 100 "$e" m1; done
grep -E "^##|== phase|by category|host API|lean|spgemm" $OUT/kprof_m1.txt | cut -c1-240
for e in "AMGT=fp64" "AMGT=fp64 AMGT_SPGEMM=lean"; do env $e AMGT_STATS=1 timeout 60 $S --problem laplace7 --n 100 --solver pcg --repeat 2 > "$OUT/stats_l7_100_${e// /_}.txt" 2>&1; done
grep -hE "^ *[0-9]+ +[0-9]+ " $OUT/stats_l7_100_*.txt | head -20
echo "stats at $(( $(date +%s) - t0 )) s"
for r in 1 2 3; do
 for c in "laplace7 100" "laplace27 100" "jump7 100" "systems3 69"; do set -- $c
  for e in "AMGT=off" "AMGT=fp64" "AMGT=fp64 AMGT_SPGEMM=lean"; do
   [ $(( $(date +%s) - t0 )) -gt 575 ] && break 3
   env $e $S --problem $1 --n $2 --solver pcg --repeat 5 --json 2>/dev/null | tail -1 | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print(json.dumps({'round':$r,'case':'$1-n$2','env':'$e','setup_s':d['setup_s'],'setup_all':d['setup_all'],'levels':d['levels'],'iterations':d['iterations']}))" >> $OUT/interleaved.jsonl
  done
 done
 echo "round $r at $(( $(date +%s) - t0 )) s"
done
python3 - <<'PY' $OUT/interleaved.jsonl
import json,sys,collections,statistics
d=collections.defaultdict(list); lv={}
for l in open(sys.argv[1]):
    r=json.loads(l); d[(r['case'],r['env'])].append(r['setup_s']); lv[(r['case'],r['env'])]=(r['levels'],r['iterations'])
for (c,e),v in sorted(d.items()): print(f"{c:16s} {e:28s} setup median {1e3*statistics.median(v):7.2f} ms over {len(v)} processes {[round(1e3*x,1) for x in v]} levels/its {lv[(c,e)]}")
PY
echo "total $(( $(date +%s) - t0 )) s"
