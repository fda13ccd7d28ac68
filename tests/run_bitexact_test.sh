#!/bin/sh
# The numerics contract: the libxsmm and portable backends give the same bits.
#   run_bitexact_test.sh ONNX2C MODEL_DIR WORK_DIR [CC]
# Compiles MODEL_DIR/model.onnx with both backends, runs both on test_data_set_0 and compares
# the written outputs byte for byte (the portable build uses -march=native when the compiler
# takes it, so fmaf is a hardware fma there too: the bits must not depend on that either).
set -eu
onnx2c=$1 dir=$2 work=$3 cc=${4:-cc}
rm -rf "$work" && mkdir -p "$work"
for b in libxsmm portable; do
    "$onnx2c" "$dir/model.onnx" -o "$work/$b.c" --gemm=$b --harness
done
"$cc" -std=c99 -O2 "$work/libxsmm.c" -o "$work/libxsmm" -lxsmm -lxsmmnoblas -lm
native=""
if "$cc" -march=native -E -x c /dev/null >/dev/null 2>&1; then native=-march=native; fi
"$cc" -std=c99 -O2 $native "$work/portable.c" -o "$work/portable" -lm
for b in libxsmm portable; do
    mkdir -p "$work/out_$b"
    "$work/$b" --require-outputs --write-outputs "$work/out_$b" "$dir/test_data_set_0"
done
for f in "$work"/out_libxsmm/output_*.pb; do
    cmp "$f" "$work/out_portable/$(basename "$f")"
done
echo "bit-identical: libxsmm and portable outputs of $dir"
