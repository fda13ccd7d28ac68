#!/usr/bin/env bash
# The first command of the README: builds onnx2c (scripts/setup.sh), compiles the example
# MLP (examples/mlp/model.onnx) to C with a test harness, builds that C file with the libxsmm
# backend and runs it on the example's reference data.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${ONNX2C_BUILD_DIR:-build}
bash scripts/setup.sh

run() { printf '+ %s\n' "$*"; "$@"; }
mkdir -p "$BUILD_DIR/example"
run "$BUILD_DIR/onnx2c" examples/mlp/model.onnx -o "$BUILD_DIR/example/mlp.c" --harness
run cc -std=c99 -O2 "$BUILD_DIR/example/mlp.c" -o "$BUILD_DIR/example/mlp" \
    -lxsmm -lxsmmnoblas -lpthread -lm -ldl
run "$BUILD_DIR/example/mlp" --require-outputs examples/mlp/test_data_set_0
