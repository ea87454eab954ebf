#!/bin/bash
# call 1: build; every GPU test (the refactored group kernels, the segmented pulls, the shared
# device scan have not run on a GPU); the re-setup's and the steps' tests; what the shared-memory
# atomics compile to; the Galerkin products in every form (kernel bench)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
rm -rf build-gpu
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 130 ctest -L gpu -j 8 --output-on-failure > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is" $OUT/ctest_gpu.log | head -20
timeout 120 ctest -R "Resetup\.|Steps\." -j 6 --output-on-failure > $OUT/ctest_resetup.log 2>&1; echo "ctest resetup rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is" $OUT/ctest_resetup.log | head -20
o=$(find . -name "galerkin_device.cu.o" | head -1)
cuobjdump -sass "$o" > $OUT/galerkin_sass.txt 2>&1
echo "sass: $(grep -c "ATOMS.CAS" $OUT/galerkin_sass.txt) ATOMS.CAS, $(grep -c "ATOMS.ADD" $OUT/galerkin_sass.txt) ATOMS.ADD, $(grep -cE "ATOMS\.[A-Z0-9.]*F64|ATOMS.*ADD.F64" $OUT/galerkin_sass.txt) f64 ATOMS, $(grep -c "RED.E.ADD.F64" $OUT/galerkin_sass.txt) RED f64"
grep -oE "ATOMS\.[A-Z0-9.]+" $OUT/galerkin_sass.txt | sort | uniq -c | head
cd ..
timeout 200 build-gpu/bin/amgt-kernel-bench --only galerkin --problem laplace7:250 --repeat 5 --json $OUT/kbench_galerkin.jsonl > $OUT/kbench_galerkin.txt 2>&1; echo "kbench rc $? at $(el) s"
grep -E "plan .* ms, AP|^laplace|total at|FAIL|fail" $OUT/kbench_galerkin.txt | cut -c1-300 | head -24
echo "end $(el) s"
