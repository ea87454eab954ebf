#!/bin/bash
# call 1 (a fresh machine): build; the kernels' GPU tests (the F-F weights' sorted rows
# among them); the F-F weights under Nsight Compute with the sorted rows bisected (default) and
# without (kSortedSearch false, rebuilt, then put back), laplace7 n=250, laplace27 n=200,
# systems3 n=126; then the 21 small cases cold with every process pinned to four cores
# (taskset), a fresh pool, to see whether pinning narrows a pair's spread
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=/tmp/w1; rm -rf $W; mkdir -p $W
nproc; lscpu | grep -E "^(Model name|NUMA node|Socket|Thread|Core)" ; nvidia-smi topo -m 2>/dev/null | head -4
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 120 ctest -j 8 -R "Twiaff|Strength|RowSums|DriverModes|driver_modes" --output-on-failure) > $W/ctest_kernels.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Total Test" $W/ctest_kernels.log | head -20
f=plugin/interp/twiaff_device.cu; cp $f /tmp/twiaff.bak
P="laplace7-n250:--problem laplace7 --n 250"; Q="laplace27-n200:--problem laplace27 --n 200"; R="systems3-n126:--problem systems3 --n 126"
mkdir -p $W/ncu_sorted $W/ncu_hypre
AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='twiaff|sorted_rows' timeout 120 bench/setup_kernels_ncu.sh build-gpu $W/ncu_sorted "$P" "$Q" "$R" > $W/ncu_sorted/run.txt 2>&1
echo "ncu sorted rc $? at $(el) s"; grep -E "twiaff|sorted_rows" $W/ncu_sorted/*-n*.txt | cut -c1-200; rm -f $W/ncu_sorted/*.ncu-rep
sed -i 's/constexpr bool kSortedSearch = true;/constexpr bool kSortedSearch = false;/' $f; grep -c "kSortedSearch = false" $f
cmake --build build-gpu --target amgt-solve > $W/rebuild1.log 2>&1; echo "rebuild rc $? at $(el) s"
AMGT=fp64 AMGT_SETUP_KERNELS=1 NCU_KERNELS='twiaff|sorted_rows' timeout 120 bench/setup_kernels_ncu.sh build-gpu $W/ncu_hypre "$P" "$Q" "$R" > $W/ncu_hypre/run.txt 2>&1
echo "ncu hypre-search rc $? at $(el) s"; grep -E "twiaff|sorted_rows" $W/ncu_hypre/*-n*.txt | cut -c1-200; rm -f $W/ncu_hypre/*.ncu-rep
cp /tmp/twiaff.bak $f; cmake --build build-gpu --target amgt-solve > $W/rebuild2.log 2>&1; echo "rebuild back rc $? at $(el) s"; grep -c "kSortedSearch = true" $f
export AMGT_BUILD_DIR=build-gpu
sed 's#\.\./shared/datasets/matrices#.carry/matrices#' bench/cases_small.tsv |
  grep -E "^(poisson10000|laplace7-n22|aniso7-n22|jump7-n22|fv1|fv2|fv3|aft01|memplus|systems3-n15|ted_B|Muu|jnlbrng1|laplace7-n31|aniso7-n31|jump7-n31|minsurfo|Dubcova1|laplace27-n22|bcsstk16|shallow_water1)\s" > /tmp/below.tsv
wc -l < /tmp/below.tsv
taskset -c 4-7 python3 bench/cold_rounds.py --cases /tmp/below.tsv --modes stock,fp64,auto,mixed --build build-gpu --covariate probe_api_s \
  --interval t --deadline $(( 570 - $(el) )) --out build-gpu/cold_p --json $W/cold_p.json > $W/cold_p.txt 2>&1
echo "cold rc $? at $(el) s"
for x in build-gpu/cold_p/batch*/run/runs.jsonl; do cp $x $W/cold_p_$(basename $(dirname $(dirname $x))).jsonl; done
tail -12 $W/cold_p.txt
tar -cJf $OUT/call1.tar.xz -C $W .
echo "end $(el) s"
