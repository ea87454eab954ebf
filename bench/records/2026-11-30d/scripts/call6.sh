#!/bin/bash
# call 6 (a fresh machine): the tests changed by 5a19645 that behave differently in a GPU build:
# "fp64 matches stock" with the plugin's kernels forced (generated problems, the dataset
# matrices, the scaled 1D Laplacians), the steps-update sequences' GPU branch (every step
# checked), the determinism test's GPU branch; the datasets from .carry/matrices
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
W=$OUT/call6; mkdir -p $W
AMGT_TARGETS="amgt-solve amg-lifecycle amgt-steps-update-check test_driver_modes test_steps_update test_bad_inputs test_determinism_mpi" \
  scripts/offline_build.sh .carry build-gpu > $W/build.log 2>&1 || { grep -E "error" $W/build.log | head -20; tail -30 $W/build.log; exit 1; }
echo "build $(el) s"
export AMGT_DATASETS=$PWD/.carry/matrices
(cd build-gpu && timeout $(( 290 - $(el) )) ctest -j 8 -R "Driver/GeneratedProblems|Driver/DatasetMatrices|DriverScaledValues|StepsUpdate.Sequences|DriverDeterminism" --output-on-failure) > $W/ctest.log 2>&1
echo "ctest rc $? at $(el) s"; grep -E "tests passed|tests failed|\(Failed\)|Timeout|Not Run|Total Test" $W/ctest.log | head -20
echo "end $(el) s"
