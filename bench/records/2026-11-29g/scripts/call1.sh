#!/bin/bash
# call 1 (a fresh machine): build; Nsight Compute's full section set on the first launch of the
# three setup kernels below half the roofline (F-F weights, strength counts, row sums; laplace7
# n=250); does binding a process's CPUs narrow the spread of cold pairs (three cases, three
# rounds each way); hypre's ij on its two large problems, AMGT unset against mixed
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
nproc; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw --format=csv,noheader
for k in twiaff_kernel strength_kernel row_sums_kernel; do
  AMGT=fp64 AMGT_SETUP_KERNELS=1 timeout 80 ncu --set full --clock-control none --kernel-name-base function \
    --kernel-name "regex:^$k" --launch-count 1 -f -o /tmp/full_$k \
    build-gpu/bin/amgt-solve --problem laplace7 --n 250 --solver amg --max-iter 1 --repeat 0 > /tmp/ncu_$k.log 2>&1
  echo "ncu $k rc $? at $(el) s"
  ncu -i /tmp/full_$k.ncu-rep --page details > $OUT/full_$k.txt 2>&1
  ncu -i /tmp/full_$k.ncu-rep --page raw --csv > /tmp/raw_$k.csv 2>&1
  grep -E "Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Registers Per|Achieved Occupancy|L1/TEX Hit|L2 Hit" $OUT/full_$k.txt | head -12
done
tar -cJf $OUT/ncu_raw.tar.xz -C /tmp raw_twiaff_kernel.csv raw_strength_kernel.csv raw_row_sums_kernel.csv 2>/dev/null
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv | grep -E "^(fv2|poisson10000|jump7-n22)	" > /tmp/pin3.tsv
for pin in none 2-5 none 2-5; do
  out=/tmp/pin_${pin}_$(date +%s)
  if [ $pin = none ]; then run=(); else run=(taskset -c $pin); fi
  timeout -s INT 75 "${run[@]}" ./scripts/run.sh --no-build --cases /tmp/pin3.tsv --modes stock,fp64,auto,mixed --repeat 1 \
    --rounds 3 --no-plots --no-stats --timeout 60 --out $out > $out.log 2>&1
  echo "pin $pin rc $? at $(el) s"
  cp $out/runs.jsonl $OUT/pin_${pin}_$(date +%s).jsonl 2>/dev/null
  python3 bench/cold_pairs.py $out/runs.jsonl 2>&1 | tail -13 | head -11
  python3 - $out/runs.jsonl <<'PY'
import json, sys, statistics as st
for l in open(sys.argv[1]):
    r = json.loads(l)
    ps = [p for p in r.get("processes", []) if p.get("status") == "ok"]
    if len(ps) < 2: continue
    c = [p["cold_total_s"] * 1e3 for p in ps]; w = [p["total_s"] * 1e3 for p in ps]
    print(f"  {r['case']:14s} {r['mode']:6s} cold {st.mean(c):6.1f} cv {st.pstdev(c)/st.mean(c):.3f}  warm {st.mean(w):6.2f} cv {st.pstdev(w)/st.mean(w):.3f}")
PY
done
left=$(( 585 - $(el) ))
timeout $left python3 bench/ij_compare.py --build build-gpu --modes unset,mixed --procs 2 --problems large \
  --json $OUT/ij_large.json > $OUT/ij_large.txt 2>&1
echo "ij rc $? at $(el) s"; tail -14 $OUT/ij_large.txt
echo "end $(el) s"
