#!/bin/bash
# record 2026-11-26b, device call 9: why the 1M fp64 setups got slower: kprof + A/B/C variants on run.sh 1M
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
S=build-gpu/bin/amgt-solve
for m in off fp64; do
  AMGT=$m LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=/tmp/k.tsv $S --problem laplace27 --n 100 --solver pcg --repeat 2 > /dev/null 2>&1
  echo "## laplace27 100 $m" >> $OUT/kprof_1m.txt
  python3 .carry/kprof/report_named.py /tmp/k.tsv --phase 'AMGSetup' --top 40 | awk '/== phase/{n++} n==3' >> $OUT/kprof_1m.txt 2>&1
done
echo "kprof $(( $(date +%s) - t0 )) s"
export AMGT_BUILD_DIR=build-gpu
for v in B A C; do
 if [ $v = A ]; then sed -i 's/{64, 8, 1, 32, 128}/{32, 8, 8, 32, 128}/' plugin/mbsr/mbsr_internal.cuh; fi
 if [ $v = C ]; then cp .carry/rows_device_old.cu plugin/rows/rows_device.cu; fi
 if [ $v != B ]; then (cd build-gpu && ninja > /tmp/rebuild.log 2>&1) || { tail -30 /tmp/rebuild.log; exit 1; }; fi
 timeout -s INT 100 ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --only 'laplace27|laplace7|jump7' --modes stock,fp64 --repeat 5 --no-stats --no-plots --timeout 60 --out /tmp/m1$v > /tmp/m1.log 2>&1; echo "1M $v rc $? at $(( $(date +%s) - t0 )) s"
 python3 - /tmp/m1$v/runs.jsonl $v >> $OUT/ab.txt <<'PY'
import json,sys,statistics
for l in open(sys.argv[1]):
    r=json.loads(l); res=r['result']
    print(sys.argv[2], f"{r['case']:16s} {r['mode']:6s}", ' '.join(f"{x*1e3:6.1f}" for x in res['setup_all']), 'med', round(statistics.median(res['setup_all'])*1e3,2))
PY
done
git checkout plugin/mbsr/mbsr_internal.cuh plugin/rows/rows_device.cu
cat $OUT/ab.txt
echo "total $(( $(date +%s) - t0 )) s"
