#!/bin/bash
# call 1: build; laplace27 n=31 beside stock with the drawn order (null); aft01's first setup and
# solve per mode (stock, fp64, auto; auto without the preload and with eager loading) in
# alternating processes; kprof of each mode's first setup and solve; ncu survey of laplace7 n=250
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
S=build-gpu/bin/amgt-solve
printf 'l27n31\t--problem laplace27 --n 31 --solver pcg\n' > /tmp/one.tsv
timeout 80 python3 bench/beside_stock.py --build build-gpu --cases /tmp/one.tsv --modes fp64,auto --null --procs 3 --repeat 6 --json $OUT/l27n31.json > $OUT/l27n31.txt 2>&1
echo "l27n31 rc $? at $(el) s"; tail -8 $OUT/l27n31.txt
M=.carry/matrices/aft01.mtx.gz
for r in 1 2 3 4; do
  for v in stock fp64 auto auto-nopre auto-eager fp64-eager stock-eager; do
    env=(); case $v in
      stock) ;; stock-eager) env=(CUDA_MODULE_LOADING=EAGER);;
      fp64) env=(AMGT=fp64);; fp64-eager) env=(AMGT=fp64 CUDA_MODULE_LOADING=EAGER);;
      auto) env=(AMGT=auto);; auto-nopre) env=(AMGT=auto AMGT_PRELOAD=0);; auto-eager) env=(AMGT=auto CUDA_MODULE_LOADING=EAGER);;
    esac
    echo "$v $(env "${env[@]}" timeout 30 $S --matrix $M --solver pcg --repeat 1 | grep -E '^  cold' )" >> $OUT/aft01_cold.txt
  done
done
echo "aft01 cold at $(el) s"
python3 - $OUT/aft01_cold.txt <<'PY'
import sys,re,statistics as st
d={}
for l in open(sys.argv[1]):
    m=re.match(r'(\S+)\s+cold \[s\]\s+setup ([\d.]+), solve ([\d.]+)',l)
    if m: d.setdefault(m.group(1),[]).append((float(m.group(2))*1e3,float(m.group(3))*1e3))
for k,v in d.items():
    print(f"{k:12s} setup {st.median([a for a,b in v]):7.2f} solve {st.median([b for a,b in v]):7.2f} ms  all setups {[round(a,1) for a,b in v]} solves {[round(b,1) for a,b in v]}")
PY
CU=/usr/local/cuda
g++ -O2 -shared -fPIC .carry/kprof/kprof.cpp -I$CU/include -L$CU/lib64 -lcupti -ldl -o /tmp/libkprof.so || echo kprof build failed
for v in stock fp64 auto; do
  env=(); [ $v != stock ] && env=(AMGT=$v)
  env "${env[@]}" LD_PRELOAD=/tmp/libkprof.so KPROF_OUT=$OUT/kprof_aft01_$v.tsv timeout 30 $S --matrix $M --solver pcg --repeat 1 > /dev/null 2>&1
  python3 .carry/kprof/report.py $OUT/kprof_aft01_$v.tsv --top 25 > $OUT/kprof_aft01_$v.txt 2>&1
  gzip $OUT/kprof_aft01_$v.tsv
done
AMGT=auto AMGT_STATS=1 $S --matrix $M --solver pcg --repeat 1 > $OUT/aft01_auto_stats.txt 2>&1
AMGT=fp64 AMGT_STATS=1 $S --matrix $M --solver pcg --repeat 1 > $OUT/aft01_fp64_stats.txt 2>&1
echo "kprof at $(el) s"
left=$(( 575 - $(el) ))
timeout $left bench/setup_kernels_ncu.sh build-gpu $OUT/ncu "laplace7-n250:--problem laplace7 --n 250" > /tmp/ncu.log 2>&1
echo "ncu rc $? at $(el) s"; tail -3 /tmp/ncu.log; rm -f $OUT/ncu/*.ncu-rep
echo "end $(el) s"
