#!/bin/bash
# call 1: the GPU build; the setup kernels' GPU tests first, then every GPU test and the
# integration tests; AMGT_STATS of a setup with them; ncu of hypre's and the plugin's versions
# (laplace7 n=250); the 1M cases beside stock with and without them (time allowing)
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
cd build-gpu
timeout 90 ctest -R "Twiaff|Strength|Pmis" -j 8 --output-on-failure > $OUT/ctest_sk.log 2>&1; echo "ctest setup kernels rc $? at $(el) s"
grep -E "tests passed|FAILED|Failed|Timeout|Expected|Which is|actual|error" $OUT/ctest_sk.log | head -30
timeout 150 ctest -L gpu -j 8 --output-on-failure > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head -12
timeout 120 ctest -R "Selection\.|Environment\." -j 8 --output-on-failure > $OUT/ctest_sel.log 2>&1; echo "ctest selected rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_sel.log | head -12
cd ..
for p in "laplace7 --n 100" "systems3 --n 69"; do
  AMGT=fp64 AMGT_SETUP_KERNELS=1 AMGT_STATS=1 timeout 40 build-gpu/bin/amgt-solve --problem $p --solver pcg --repeat 1 > $OUT/stats_$(echo $p | tr -d ' -').txt 2>&1
  echo "stats $p rc $?"; grep -iE "setup kernel|PMIS|F-F|strength counts|iterations|residual" $OUT/stats_$(echo $p | tr -d ' -').txt | head -12
done
if [ $(el) -lt 400 ]; then
  for v in 0 1; do
    AMGT=fp64 AMGT_SETUP_KERNELS=$v NCU_KERNELS='twiaff|CreateS|strength|IndepSet|UpdateCF|indep_set|update_cf' timeout 100 bench/setup_kernels_ncu.sh build-gpu $OUT/ncu_sk$v "laplace7-n250:--problem laplace7 --n 250" > /tmp/ncu.log 2>&1
    echo "ncu sk=$v rc $? at $(el) s"; cat $OUT/ncu_sk$v/*.txt 2>/dev/null | head -14; rm -f $OUT/ncu_sk$v/*.ncu-rep
  done
fi
if [ $(el) -lt 480 ]; then
  timeout $(( 570 - $(el) )) python3 bench/beside_stock.py --build build-gpu --cases bench/cases_1m.tsv --modes fp64,fp64-sk,auto-sk --procs 1 --repeat 4 --json $OUT/bs_1m.json > $OUT/bs_1m.txt 2>&1
  echo "beside 1M rc $? at $(el) s"; cat $OUT/bs_1m.txt | tail -20
fi
echo "end $(el) s"
