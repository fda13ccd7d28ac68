#!/usr/bin/env bash
# The second command of the README: builds onnx2c (scripts/setup.sh) and runs every test
# (unit tests, model tests, ONNX backend node tests, negative tests) with CTest.
# Extra arguments go to ctest, e.g.  bash scripts/run_tests.sh -R backend
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${ONNX2C_BUILD_DIR:-build}
JOBS=$(nproc 2>/dev/null || echo 2)
bash scripts/setup.sh
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" "$@"
