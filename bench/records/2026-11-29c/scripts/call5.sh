#!/bin/bash
# call 5 (call 4's machine, the rest of the device time): the kernel bench rebuilt on bef25ff and
# its Galerkin products on laplace7 n=250 (stopped by the device time after level 1)
t0=$(date +%s); AMGT_TARGETS=amgt-kernel-bench scripts/offline_build.sh .carry build-gpu > /tmp/b.log 2>&1 || { tail -20 /tmp/b.log; exit 1; }; echo "build $(( $(date +%s) - t0 )) s"; timeout 150 build-gpu/bin/amgt-kernel-bench --only galerkin --problem laplace7:250 --repeat 5 --json $OUT/kbench_laplace7_250.jsonl > $OUT/kbench_laplace7_250.txt 2>&1; echo "kbench rc $? at $(( $(date +%s) - t0 )) s"; grep -E "plan .* ms, AP|by places:|total at|FAIL|fail" $OUT/kbench_laplace7_250.txt | cut -c1-260 | head -14
