#!/bin/bash
# call 1: build, the GPU tests (the preload's load order, its stop at HYPRE_Finalize and the
# loader in the device layer never ran on a GPU), the re-setup memory test's processes with the
# C heap beside the resident set (preload on/off, re-setup galerkin/off, 2000 steps), the
# machine's CPU/GPU topology and the spread of one small case's times between processes,
# unbound and bound to each NUMA node's cores
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
{ nvidia-smi topo -m; lscpu; nvidia-smi -q -d CLOCK | head -40; } > $OUT/topo.txt 2>&1
grep -E "^GPU0|NUMA node|^CPU\(s\)|Model name|Thread|Socket" $OUT/topo.txt | head -12
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
(cd build-gpu && timeout 150 ctest -L gpu -j 8 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head -12
(cd build-gpu && timeout 100 ctest -R "KernelImages|Selection\.|Steps\.|Resetup\.|Environment\." -j 8 --output-on-failure) > $OUT/ctest_sel.log 2>&1; echo "ctest selected rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\*\*\*|\[ memory \]" $OUT/ctest_sel.log | head -12
L=build-gpu/bin/amg-lifecycle
for pre in 1 0; do
  for rs in galerkin off; do
    AMGT=fp64 AMGT_RESETUP=$rs AMGT_PRELOAD=$pre AMGT_STATS=1 timeout 40 $L resetup --n 6 --steps 2000 --rss-every 200 > /tmp/l.txt 2>&1
    echo "lifecycle preload=$pre resetup=$rs rc $? $(grep rss_sample_kib /tmp/l.txt | awk '{printf "%s/%s@%s ", $2, $6, $4}')"
    grep -iE "preload|kernels were loaded" /tmp/l.txt | head -3
  done
done > $OUT/rss.txt 2>&1
echo "rss at $(el) s"; cut -c1-400 $OUT/rss.txt
S=build-gpu/bin/amgt-solve
AMGT=auto AMGT_STATS=1 timeout 20 $S --matrix .carry/matrices/ted_B.mtx.gz --solver pcg --repeat 1 2>&1 | grep -iE "kernels were loaded|preload|^  time|^  cold" > $OUT/stats_tedB.txt
nodes=$(lscpu -p=NODE | grep -v '^#' | sort -un | tr '\n' ' ')
for r in 1 2 3 4 5; do
  for c in "ted_B --matrix .carry/matrices/ted_B.mtx.gz" "laplace27-n22 --problem laplace27 --n 22" "bcsstk16 --matrix .carry/matrices/bcsstk16.mtx.gz"; do
    set -- $c; lab=$1; shift
    for b in free $nodes lo hi; do
      case $b in
        free) P="";;
        lo) P="taskset -c 0-$(( $(nproc) / 2 - 1 ))";;
        hi) P="taskset -c $(( $(nproc) / 2 ))-$(( $(nproc) - 1 ))";;
        *) P="taskset -c $(lscpu -p=CPU,NODE | grep -v '^#' | awk -F, -v n=$b '$2==n{printf "%s%s", s, $1; s=","}')";;
      esac
      env -u AMGT $P timeout 20 $S "$@" --solver pcg --repeat 3 > /tmp/o.txt 2>&1
      echo "spread $lab bind=$b round=$r $(grep -E '^  (time|cold)' /tmp/o.txt | tr -s ' ' | tr '\n' ' ')"
    done
  done
done > $OUT/spread.txt 2>&1
echo "spread at $(el) s"; head -4 $OUT/spread.txt
echo "end $(el) s"
