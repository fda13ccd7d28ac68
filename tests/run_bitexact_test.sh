#!/bin/sh
# The numerics contract: the libxsmm and portable backends give the same bits, and so do the
# NCHW and channels-last layouts.
#   run_bitexact_test.sh ONNX2C MODEL_DIR WORK_DIR [CC]
# Compiles MODEL_DIR/model.onnx with both backends, runs both on test_data_set_0 and compares
# the written outputs byte for byte (the portable build uses -march=native when the compiler
# takes it, so fmaf is a hardware fma there too: the bits must not depend on that either).
# Both use the default layout (auto); then the other layout (nchw or nhwc) on libxsmm, built and
# compared only when its C differs from the default's below the first line (which names the
# file): a model with convs.
set -eu
onnx2c=$1 dir=$2 work=$3 cc=${4:-cc}
rm -rf "$work" && mkdir -p "$work"
for b in libxsmm portable; do
    "$onnx2c" "$dir/model.onnx" -o "$work/$b.c" --gemm=$b --harness
done
builds="libxsmm portable"
tail -n +2 "$work/libxsmm.c" > "$work/default.body"
for l in nchw nhwc; do
    "$onnx2c" "$dir/model.onnx" -o "$work/$l.c" --gemm=libxsmm --harness --layout=$l
    tail -n +2 "$work/$l.c" > "$work/$l.body"
    cmp -s "$work/default.body" "$work/$l.body" || builds="$builds $l"
done
"$cc" -std=c99 -O2 "$work/libxsmm.c" -o "$work/libxsmm" -lxsmm -lxsmmnoblas -lm
native=""
if "$cc" -march=native -E -x c /dev/null >/dev/null 2>&1; then native=-march=native; fi
"$cc" -std=c99 -O2 $native "$work/portable.c" -o "$work/portable" -lm
for l in $builds; do
    case $l in nchw | nhwc) "$cc" -std=c99 -O2 "$work/$l.c" -o "$work/$l" -lxsmm -lxsmmnoblas -lm ;; esac
done
for b in $builds; do
    mkdir -p "$work/out_$b"
    "$work/$b" --require-outputs --write-outputs "$work/out_$b" "$dir/test_data_set_0"
done
for f in "$work"/out_libxsmm/output_*.pb; do
    for b in $builds; do
        cmp "$f" "$work/out_$b/$(basename "$f")"
    done
done
echo "bit-identical: $builds outputs of $dir"
