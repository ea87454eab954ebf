#!/bin/bash
# call 2 (call 1's machine and build): the whole small suite cold, round pairs in batches
# (bench/cold_rounds.py), as record 2026-11-29g's call 2, with amgt-solve's per-process times
# (input_s, init_s, assemble_s) in the outputs; run from the repository root as:
LIMIT=580 TAG=h bash bench/records/2026-11-29g/scripts/call2.sh
