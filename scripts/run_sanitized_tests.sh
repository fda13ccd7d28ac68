#!/usr/bin/env bash
# The test suite with the compiler under AddressSanitizer and UndefinedBehaviorSanitizer
# (LeakSanitizer too): builds onnx2c, the unit tests and the compiler-linking tests with
# -DONNX2C_SANITIZE=ON into build-asan/ and runs CTest there. The C the compiler writes is
# built by the tests as usual (uninstrumented). Any sanitizer report fails the test it happens
# in: reports exit with status 86, which no test expects, and print their stack to stderr.
# Not part of the default `ctest` (it roughly doubles the suite's time).
#
#   bash scripts/run_sanitized_tests.sh                      # every test
#   bash scripts/run_sanitized_tests.sh -L 'unit|negative'   # arguments go to ctest
#   ONNX2C_ASAN_BUILD_DIR=build-asan2 JOBS=1 bash scripts/run_sanitized_tests.sh
#
# Prerequisites: those of scripts/setup.sh (run it first). CC defaults to clang.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${ONNX2C_ASAN_BUILD_DIR:-build-asan}
JOBS=${JOBS:-2}
PY=$PWD/.venv/bin/python
[ -x "$PY" ] || { echo "run_sanitized_tests: no .venv (run scripts/setup.sh)" >&2; exit 1; }

# Debug (-O0 -g, asserts on): clang -O2 with the sanitizers takes over ten minutes on each of
# the channels-last kernels' unit tests (their unrolled forms); ONNX2C_ASAN_BUILD_TYPE overrides.
CC=${CC:-clang} cmake -S . -B "$BUILD_DIR" -DONNX2C_SANITIZE=ON -DPython3_EXECUTABLE="$PY" \
    -DCMAKE_BUILD_TYPE="${ONNX2C_ASAN_BUILD_TYPE:-Debug}" \
    >"$BUILD_DIR.configure.log" 2>&1 || { cat "$BUILD_DIR.configure.log"; exit 1; }
cmake --build "$BUILD_DIR" -j"$JOBS" >"$BUILD_DIR.build.log" 2>&1 ||
    { tail -30 "$BUILD_DIR.build.log"; exit 1; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=86}
export LSAN_OPTIONS=${LSAN_OPTIONS:-exitcode=86}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$JOBS" "$@"
