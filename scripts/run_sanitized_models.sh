#!/usr/bin/env bash
# The C the compiler writes, under AddressSanitizer and UndefinedBehaviorSanitizer: compiles
# each model with onnx2c (both backends), builds the harness with clang -fsanitize=address,
# undefined and runs one inference on the model's test_data_set_0 (tests/run_model_test.sh:
# the outputs must match the reference too), in both layouts (auto writes one of the two). A
# sanitizer report exits with status 86, which fails the model. run_sanitized_tests.sh covers
# the compiler itself; this covers the kernels as the generated file pastes them, on real
# model shapes. Not part of `ctest`: on the
# benchmark models it takes about 10 minutes of 2 cores (the files build at -O0, below).
#
#   bash scripts/run_sanitized_models.sh                         # benchmarks/models/*
#   bash scripts/run_sanitized_models.sh tests/models/lenet5 ... # the given model directories
#   GEMMS=portable LAYOUTS=auto bash scripts/run_sanitized_models.sh
#
# ONNX2C (default build/onnx2c) is the compiler to use; GEMMS (default "libxsmm portable") the
# backends; LAYOUTS (default "nchw nhwc") the --layout values; WORK (default
# build/sanitized_models) where files go. Prints one line per model, backend and layout, and
# exits 1 if any failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1

ONNX2C=${ONNX2C:-build/onnx2c}
GEMMS=${GEMMS:-libxsmm portable}
LAYOUTS=${LAYOUTS:-nchw nhwc}
WORK=${WORK:-build/sanitized_models}
[ -x "$ONNX2C" ] || { echo "run_sanitized_models: no $ONNX2C (run scripts/setup.sh)" >&2; exit 1; }
if [ $# -eq 0 ]; then
    set -- benchmarks/models/*/
    [ -d "$1" ] || { echo "run_sanitized_models: no benchmarks/models/" >&2; exit 1; }
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=86}
# The C compiler run_model_test.sh calls, one word, so a small wrapper: it adds -std=c99 -O2
# -Wall -Wextra -pedantic -Werror, the wrapper's -O0 after them wins (the channels-last kernels
# unroll into code that clang with the sanitizers takes minutes to optimise: tiny_dscnn_kws
# 190 s at -O1); -g names the lines of a report.
mkdir -p "$WORK"
cc=$PWD/$WORK/clang-sanitize
case $WORK in /*) cc=$WORK/clang-sanitize ;; esac
printf '#!/bin/sh\nexec clang -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all "$@" -O0\n' >"$cc"
chmod +x "$cc"

failed=0
for dir in "$@"; do
    dir=${dir%/}
    name=$(basename "$dir")
    for gemm in $GEMMS; do
        for layout in $LAYOUTS; do
            log=$WORK/$name.$gemm.$layout.log
            start=$(date +%s)
            if tests/run_model_test.sh --gemm="$gemm" --cc="$cc" "$ONNX2C" "$dir" \
                "$WORK/$name.$gemm.$layout" -- --layout="$layout" >"$log" 2>&1; then
                echo "ok   $name $gemm $layout ($(($(date +%s) - start)) s)"
            else
                echo "FAIL $name $gemm $layout: $log"
                grep -m3 -E 'ERROR: |runtime error|FAIL' "$log" | sed 's/^/     /'
                failed=1
            fi
        done
    done
done
exit $failed
