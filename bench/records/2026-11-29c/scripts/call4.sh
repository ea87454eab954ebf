#!/bin/bash
# call 4 (the rest of the device time): only the re-setup's GPU test binary built (the places'
# two walks in one kernel), and its tests
set -o pipefail
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
AMGT_TARGETS=test_resetup_device scripts/offline_build.sh .carry build-gpu > /tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head -20; tail -30 /tmp/build.log; exit 1; }
echo "build $(el) s"
b=$(find build-gpu -name test_resetup_device -type f -perm -u+x | head -1)
timeout 60 $b > $OUT/test_resetup_device.log 2>&1; echo "test rc $? at $(el) s"
grep -E "PASSED|FAILED|Expected|Which is|\[ plan|\[ places" $OUT/test_resetup_device.log | head -30
