#!/bin/sh
# A golden-file regression test for a model compiled with onnx2c, to copy into a project's CI.
# onnx2c's output gives the same bits on every compiler, optimisation level, backend and CPU,
# so the test compares bits (--exact), not a tolerance: any change to the model, the compiler
# or the inputs shows.
#
#   golden.sh record MODEL.onnx GOLDEN_DIR INPUT_DIR...  once: copy each INPUT_DIR's input_<i>.pb
#                                                        to GOLDEN_DIR/case_<k>/ and write the
#                                                        model's outputs there (output_<i>.pb)
#   golden.sh check MODEL.onnx GOLDEN_DIR                in CI: the outputs must have the
#                                                        recorded bits; exit 0, or 1 on a change
#
# Environment: ONNX2C (default onnx2c), CC (default cc), ONNX2C_FLAGS (e.g. --gemm=portable or
# --shape x=1x3x32x32), WORK (build folder, default a temporary one). Commit GOLDEN_DIR.
set -eu
[ $# -ge 3 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
mode=$1 model=$2 golden=$3
shift 3
onnx2c=${ONNX2C:-onnx2c} cc=${CC:-cc}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"

# The model with onnx2c's test harness (it reads and writes ONNX TensorProto files).
# shellcheck disable=SC2086 # ONNX2C_FLAGS is a list of options
"$onnx2c" "$model" -o "$work/model.c" --harness ${ONNX2C_FLAGS:-}
libs=$(sed -n '1s/.* -o model //p' "$work/model.c") # the link flags its first line states
# shellcheck disable=SC2086 # $libs is a list of flags
"$cc" -std=c99 -O2 "$work/model.c" -o "$work/model" $libs

case $mode in
record)
    [ $# -ge 1 ] || { echo "golden.sh: record needs at least one INPUT_DIR" >&2; exit 2; }
    k=0
    for dir in "$@"; do
        case_dir=$golden/case_$k
        rm -rf "$case_dir" && mkdir -p "$case_dir"
        cp "$dir"/input_*.pb "$case_dir"/
        "$work/model" --write-outputs "$case_dir" "$case_dir"
        k=$((k + 1))
    done
    echo "golden.sh: recorded $k case(s) in $golden"
    ;;
check)
    "$work/model" --exact --require-outputs "$golden"/case_*
    ;;
*)
    echo "golden.sh: mode must be record or check, not '$mode'" >&2
    exit 2
    ;;
esac
