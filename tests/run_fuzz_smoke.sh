#!/bin/sh
# The fuzz smoke of the default test suite: builds fuzz/fuzz_compile (clang, libFuzzer, ASan,
# UBSan) in a build folder of its own and runs its bounded smoke (3,000 executions over the
# committed corpus); any crash, sanitizer report, timeout or OOM fails it.
#   run_fuzz_smoke.sh SOURCE_DIR BUILD_DIR PYTHON
set -eu
src=$1 build=$2 py=$3
CC=clang cmake -S "$src" -B "$build" -DONNX2C_FUZZ=ON -DPython3_EXECUTABLE="$py" >"$build.configure.log" 2>&1 ||
    { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j2 --target fuzz_compile >"$build.build.log" 2>&1 ||
    { tail -30 "$build.build.log"; exit 1; }
ctest --test-dir "$build" -R '^fuzz_smoke$' --output-on-failure
