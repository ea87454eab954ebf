#!/bin/bash
# record 2026-11-26e, device call 8 (warm machine after call 7): 1M cases, final code
export AMGT_BUILD_DIR=build-gpu; timeout -s INT 400 ./scripts/run.sh --no-build --cases bench/cases_1m.tsv --modes stock,fp64,auto --repeat 5 --rounds 2 --no-stats --no-plots --timeout 100 --out $OUT/m1
