#!/bin/bash
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 120 ctest -R "ResetupDevice|Resetup\.|ResetupRule|ResetupConfig|ResetupStats|Fingerprint|FixedPattern|NumericOnPattern|GalerkinPlan" -j 4 --output-on-failure) > $OUT/ctest_resetup.log 2>&1; echo "ctest resetup rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout|numeric \]|memory \]" $OUT/ctest_resetup.log | head -20
L=build-gpu/bin/amg-lifecycle
for m in fp64 auto; do
  AMGT=$m AMGT_RESETUP=galerkin AMGT_STATS=1 timeout 60 $L resetup --device --n 40 --steps 4 --frozen-check --pcg > $OUT/frozen_$m.txt 2>&1; echo "frozen $m rc $?"; grep -E "frozen|^step|setups" $OUT/frozen_$m.txt | head -20
done
for n in 100 200; do
for rs in off galerkin auto; do
  AMGT=auto AMGT_RESETUP=$rs AMGT_STATS=1 timeout 120 $L resetup --device --n $n --steps 8 --pcg > $OUT/t_${n}_$rs.txt 2>&1; echo "n=$n auto resetup=$rs rc $?"; grep -E "^time|^step|setups" $OUT/t_${n}_$rs.txt | paste - - | awk '{print $1,$3,$5,$8,$10}' | head -10; grep setups $OUT/t_${n}_$rs.txt | cut -c1-200
done
env -u AMGT timeout 120 $L resetup --device --n $n --steps 8 --pcg > $OUT/t_${n}_stock.txt 2>&1; echo "n=$n stock rc $?"; grep -E "^time|^step" $OUT/t_${n}_stock.txt | paste - - | awk '{print $1,$3,$5,$8,$10}' | head -10
done
echo "at $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout $(( 560 - ($(date +%s) - t0) )) ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
