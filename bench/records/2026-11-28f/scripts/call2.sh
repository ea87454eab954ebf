#!/bin/bash
# (the experiment AMGT_PRELOAD_THROUGH was a local change of hypre_glue/backend_device_preload.cpp
# built into the carried libHYPRE: the preload's image loading not stopped by the first setup;
# measured slower and not kept)
# call 2 (libHYPRE and amgt-solve built on the development machine, sm_90, carried): laplace27
# n=31 beside stock with the random numbers reset per run; the first setup with the preload's
# image loading going on through the first setup (AMGT_PRELOAD_THROUGH, experiment) against the
# present preload and stock, alternating processes; ncu of laplace7 n=250's setup kernels
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
export LD_LIBRARY_PATH=$PWD/build-carry/lib:$LD_LIBRARY_PATH
S=build-carry/bin/amgt-solve
printf 'l27n31\t--problem laplace27 --n 31 --solver pcg\n' > /tmp/one.tsv
timeout 80 python3 bench/beside_stock.py --build build-carry --cases /tmp/one.tsv --modes fp64,auto --null --procs 3 --repeat 6 --json $OUT/l27n31.json > $OUT/l27n31.txt 2>&1
echo "l27n31 rc $? at $(el) s"; tail -7 $OUT/l27n31.txt
$S --problem laplace27 --n 31 --solver pcg --repeat 8 | grep -E "setup all|random" ; echo
for r in 1 2 3 4 5 6; do
  for c in "aft01 --matrix build-carry/m/aft01.mtx.gz" "bcsstk16 --matrix build-carry/m/bcsstk16.mtx.gz" "l7n22 --problem laplace7 --n 22"; do
    set -- $c; lab=$1; shift
    for v in stock fp64 fp64-thr auto auto-thr; do
      env=(); case $v in
        stock) ;; fp64) env=(AMGT=fp64);; fp64-thr) env=(AMGT=fp64 AMGT_PRELOAD_THROUGH=1);;
        auto) env=(AMGT=auto);; auto-thr) env=(AMGT=auto AMGT_PRELOAD_THROUGH=1);;
      esac
      echo "$lab $v $(env "${env[@]}" timeout 30 $S "$@" --solver pcg --repeat 1 2>/dev/null | grep -E '^  cold' )" >> $OUT/cold.txt
    done
  done
done
echo "cold at $(el) s"
python3 - $OUT/cold.txt <<'PY'
import sys,re,statistics as st
d={}
for l in open(sys.argv[1]):
    m=re.match(r'(\S+) (\S+)\s+cold \[s\]\s+setup ([\d.]+), solve ([\d.]+)',l)
    if m: d.setdefault((m.group(1),m.group(2)),[]).append((float(m.group(3))*1e3,float(m.group(4))*1e3))
for (c,v),x in sorted(d.items()):
    s0=st.median([a+b for a,b in d[(c,'stock')]]); t=st.median([a+b for a,b in x])
    print(f"{c:9s} {v:9s} setup {st.median([a for a,b in x]):7.2f} solve {st.median([b for a,b in x]):7.2f} total {t:7.2f} ms  stock/this {s0/t:.3f}  totals {[round(a+b,1) for a,b in x]}")
PY
for v in fp64 fp64-thr; do
  env=(AMGT=fp64 AMGT_STATS=1); [ $v = fp64-thr ] && env+=(AMGT_PRELOAD_THROUGH=1)
  env "${env[@]}" $S --matrix build-carry/m/aft01.mtx.gz --solver pcg --repeat 1 2>&1 | grep -E "kernels were|^  cold" | cut -c1-330
done
echo "stats at $(el) s"
left=$(( 560 - $(el) ))
NCU_KERNELS='twiaff|CreateS|PMIS|IndepSet|RowSum|Trunc|weak_rowsums|ExtractDiag|MoveDiag|DeviceSelectSweep|spgemm|SpGemm' timeout $left bench/setup_kernels_ncu.sh build-carry $OUT/ncu "laplace7-n250:--problem laplace7 --n 250" > /tmp/ncu.log 2>&1
echo "ncu rc $? at $(el) s"; tail -30 /tmp/ncu.log; rm -f $OUT/ncu/*.ncu-rep
echo "end $(el) s"
