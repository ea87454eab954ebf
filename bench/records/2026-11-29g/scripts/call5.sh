#!/bin/bash
# call 5 (call 4's machine and build): the tests of the two kernels (the former F-F weights kernel
# with the new alignment test) and the resident-set tests that failed under call 3's `ctest -j 8`,
# alone, then with the preload off
cd build-gpu && (ctest -R "ResidentSet|TwiaffDevice|RowSumsDevice" --output-on-failure 2>&1 | grep -E "memory \]|Passed|Failed|tests passed"); (AMGT_PRELOAD=0 ctest -R "ResidentSet" --output-on-failure 2>&1 | grep -E "memory \]|tests passed")
