#!/usr/bin/env bash
# Builds everything (GPU build when a GPU is present, CPU otherwise) and runs the tests:
# unit and integration on every machine, plus the `gpu` label where a GPU is present.
#   ./scripts/test.sh [ctest arguments...]
set -eu -o pipefail
source "$(dirname "$0")/lib.sh"

amgt_install_dependencies
amgt_build

labels="unit|integration"
if amgt_want_gpu; then labels="unit|integration|gpu"; fi
amgt_log "running ctest -L '$labels'"
cd "$AMGT_BUILD_DIR"
ctest -L "$labels" --output-on-failure -j "${AMGT_TEST_JOBS:-2}" "$@"
