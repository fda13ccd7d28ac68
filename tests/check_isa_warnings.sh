#!/bin/sh
# The generated C of every test model is warning-free (-std=c99 -Wall -Wextra -pedantic -Werror)
# with each C compiler for each x86 vector ISA that the kernels have a form for: AVX (the conv
# sub-tiles), AVX2 (x86-64-v3: the int8 tiles' vpmaddwd), AVX-512 (skylake-avx512: the named
# vector tiles) and AVX512-VNNI (icelake-server). The model tests build without -march, so they
# see only the plain forms; clang warns of a static function that a form leaves unused, which
# gcc does not (two such functions were found this way). Syntax only: no code is generated, so
# the host need not have the ISA.
#
#   check_isa_warnings.sh ONNX2C MODELS_DIR OUT_DIR CC [CC ...]
set -eu
onnx2c=$1
models=$2
out=$3
shift 3
mkdir -p "$out"
fail=0
for dir in "$models"/*/; do
    [ -f "$dir/model.onnx" ] || continue
    m=$(basename "$dir")
    c="$out/$m.c"
    "$onnx2c" "$dir/model.onnx" -o "$c" --harness --gemm=portable
    for cc in "$@"; do
        for isa in -mavx -march=x86-64-v3 -march=skylake-avx512 -march=icelake-server; do
            if ! "$cc" -std=c99 -O2 $isa -Wall -Wextra -pedantic -Werror -fsyntax-only "$c" \
                2> "$out/$m.err"; then
                echo "FAIL: $m with $cc $isa: $(grep -m1 'error' "$out/$m.err")"
                fail=1
            fi
        done
    done
done
[ "$fail" = 0 ] && echo "ok: every model warning-free with $* for AVX, AVX2, AVX-512, VNNI"
exit "$fail"
