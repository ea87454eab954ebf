#!/bin/bash
# call 1: build; the GPU tests of the selection and the environment (the integration tests in
# their AMGT_SETUP_KERNELS=1 / default forms); the whole small suite warm, stock timed beside
# every plugin mode (fp64, auto, mixed) in the same processes, with the default setting
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
# the committed setup kernels (the working tree's copies of these three were being edited)
for f in plugin/interp/twiaff_device.cu plugin/coarsen/strength_device.cu plugin/coarsen/pmis_device.cu; do
  cmp -s .carry/pristine/$(basename $f) $f || { cp .carry/pristine/$(basename $f) $f; echo "restored $f"; }
done
if [ ! -x build-gpu/bin/amgt-solve ]; then
  scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
  echo "build $(el) s"
fi
mkdir -p /tmp/o
(cd build-gpu && timeout 150 ctest -R "Selection\.|Environment\." -j 8 --output-on-failure) > /tmp/o/ctest.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|FAILED|Failed|Timeout|\(Failed\)" /tmp/o/ctest.log | head -20
cp /tmp/o/ctest.log $OUT/ctest_sel.log
left=$(( ${LIMIT:-575} - $(el) ))
timeout $left python3 bench/beside_stock.py --build build-gpu --cases bench/cases_small.tsv --matrices .carry/matrices \
  --modes fp64,auto,mixed --procs 2 --repeat 2 --timeout 60 --deadline $(( left - 15 )) --json $OUT/bs_small.json > $OUT/bs_small.txt 2>&1
echo "beside small rc $? at $(el) s"; tail -12 $OUT/bs_small.txt
awk '$3 ~ /^[0-9]+$/ && $7+0 < 0.98' $OUT/bs_small.txt | head -20
echo "end $(el) s"
