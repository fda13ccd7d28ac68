#!/bin/sh
# examples/golden/golden.sh as a user's CI runs it, on examples/mlp: record the golden outputs
# with the portable backend, check them with each backend given, then flip one bit of a golden
# output and require check to fail with exit 1 (a change is caught).
#   run_golden_test.sh ONNX2C WORK_DIR PYTHON BACKEND...
set -eu
onnx2c=$1 work=$2 py=$3
shift 3
src=$(cd "$(dirname "$0")/.." && pwd)
golden=$src/examples/golden/golden.sh model=$src/examples/mlp/model.onnx
fail() { echo "run_golden_test: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
export ONNX2C="$onnx2c"
ONNX2C_FLAGS=--gemm=portable WORK=$work/record sh "$golden" record "$model" "$work/golden" \
    "$src/examples/mlp/test_data_set_0"
[ -f "$work/golden/case_0/output_0.pb" ] || fail "record wrote no golden output"
for backend in "$@"; do
    ONNX2C_FLAGS=--gemm=$backend WORK=$work/$backend sh "$golden" check "$model" "$work/golden" ||
        fail "check with --gemm=$backend fails on the outputs just recorded"
done
# flip the lowest bit of the last float of the golden output (the raw data ends the file)
"$py" - "$work/golden/case_0/output_0.pb" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[-4] ^= 1
open(p, "wb").write(bytes(b))
PY
set +e
WORK=$work/portable ONNX2C_FLAGS=--gemm=portable sh "$golden" check "$model" "$work/golden"
rc=$?
set -e
[ $rc -eq 1 ] || fail "check of a changed golden output exited with $rc, not 1"
echo "run_golden_test: ok (recorded, checked with: $*; a one-bit change fails)"
