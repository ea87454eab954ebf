#!/bin/bash
# call 4 (the warm machine of call 3, its build): the Galerkin products under the plan's rule
timeout 150 build-gpu/bin/amgt-kernel-bench --only galerkin --problem laplace7:250 --repeat 5 > $OUT/kbench_galerkin.txt 2>&1; echo "kbench rc $?"; grep -E "plan .* ms, AP|^laplace|total at|FAIL|fail" $OUT/kbench_galerkin.txt | cut -c1-300 | head -24
