#!/bin/bash
# call 2: build; the re-setup's GPU tests (the walk's rule, places wherever they fit); what the
# shared-memory atomics compile to; the Galerkin products on laplace7 n=250 and laplace27 n=200
# (kernel bench, both walks); the setup products' SpGEMM table on laplace7 n=250 (short rows,
# tiles) while time is left
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 90 ctest -R "ResetupDevice|Resetup\.|Steps\." -j 8 --output-on-failure > $OUT/ctest_resetup.log 2>&1; echo "ctest rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|\[ plan" $OUT/ctest_resetup.log | head -30
cd ..
d=$(mktemp -d); nvcc -arch=sm_90 -cubin -o $d/a.cubin bench/records/2026-11-29c/scripts/shared_atomics.cu && cuobjdump -sass $d/a.cubin > $OUT/shared_atomics_sass.txt
echo "shared atomics: $(grep -oE 'ATOMS\.[A-Z0-9.]+' $OUT/shared_atomics_sass.txt | sort | uniq -c | tr '\n' ' ')"
for prob in laplace7:250 laplace27:200; do
  f=$(echo $prob | tr : _)
  timeout 130 build-gpu/bin/amgt-kernel-bench --only galerkin --problem $prob --repeat 5 --json $OUT/kbench_$f.jsonl > $OUT/kbench_$f.txt 2>&1; echo "kbench $prob rc $? at $(el) s"
  grep -E "plan .* ms, AP|by places:|total at|FAIL|fail" $OUT/kbench_$f.txt | cut -c1-260 | head -14
done
left=$(( 540 - $(el) )); [ $left -gt 40 ] || exit 0
timeout $left build-gpu/bin/amgt-kernel-bench --only spgemm --problem laplace7:250 --repeat 3 --json $OUT/kbench_spgemm.jsonl > $OUT/kbench_spgemm.txt 2>&1; echo "spgemm rc $? at $(el) s"
grep -E "L0 A\*P|L1 A\*P|geomean|FAIL" $OUT/kbench_spgemm.txt | cut -c1-260 | head -20
echo "end $(el) s"
