#!/bin/bash
# record 2026-11-26e, device call 9: the review mends (PTX-identical plugin, planner predicate): GPU and integration tests
set -o pipefail
t0=$(date +%s)
scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
(cd build-gpu && timeout 200 ctest -L gpu -j 4 --output-on-failure) > $OUT/ctest_gpu.log 2>&1; echo "ctest gpu rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_gpu.log | head
(cd build-gpu && timeout 200 ctest -L integration -j 4 --output-on-failure) > $OUT/ctest_integration.log 2>&1; echo "ctest integration rc $? at $(( $(date +%s) - t0 )) s"; grep -E "tests passed|FAILED|Failed|Timeout" $OUT/ctest_integration.log | head
echo "total $(( $(date +%s) - t0 )) s"
