#!/bin/bash
# call 2 (call 1's machine and build): call 1's cold A/B again, without its tests and traces
TESTS=0 TRACES=0 CALL=2 LIMIT=555 bash bench/records/2026-11-29e/scripts/call1.sh
