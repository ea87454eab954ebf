#!/bin/bash
# record 2026-11-26c, device call 5: entries kernel variants (early b + tile prefetch; pipelined passes; register caps), SpMV tests
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { tail -40 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 120 ctest -R "Spmv|EntryOrder|Entries" -j 4 --output-on-failure) > $OUT/ctest_spmv.log 2>&1; echo "ctest spmv rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed" $OUT/ctest_spmv.log | head
run_variant() {
  echo "== variant $1 at $(( $(date +%s) - t0 )) s"
  for pp in "laplace27:200 fp32" "laplace27:200 fp64" "systems3:126 fp32"; do set -- $pp
    timeout 90 build-gpu/bin/amgt-kernel-bench --only spmv --problem $1 --device-only --setup-products 0 --repeat 5 --warmup 1 --precision $2 > /tmp/kb.txt 2>&1; echo "kbench $1 $2 rc $?"
    sed -n '/== SpMV  y = A/,/^$/p' /tmp/kb.txt | grep -E "^(laplace27_n200|systems3_n126) " | cut -c1-260
  done
}
F=plugin/spmv/spmv_kernels.cuh
rebuild() { (cd build-gpu && ninja > /tmp/ninja.log 2>&1) || tail -20 /tmp/ninja.log; }
run_variant "A: early b + tile prefetch"
sed -i 's/constexpr bool kEntriesPipeline      = false;/constexpr bool kEntriesPipeline      = true;/' $F; rebuild
run_variant "B: + pipelined passes"
sed -i 's/constexpr int  kEntriesMinBlocks     = 1;/constexpr int  kEntriesMinBlocks     = 6;/' $F; rebuild
run_variant "C: + pipelined, min 6 blocks"
sed -i 's/constexpr bool kEntriesPipeline      = true;/constexpr bool kEntriesPipeline      = false;/' $F; sed -i 's/constexpr int  kEntriesMinBlocks     = 6;/constexpr int  kEntriesMinBlocks     = 8;/' $F; rebuild
run_variant "D: no pipeline, min 8 blocks"
echo "total $(( $(date +%s) - t0 )) s"
