#!/bin/sh
# Bit-exact everywhere (issue 11): one model's outputs, written by the portable build of
# x86-64 gcc -O2, must be reproduced bit for bit by gcc and clang at -O0/-O2/-O3 with both
# backends, and by aarch64 and armhf builds (Debian's cross compilers, run under qemu-user).
# Targets whose compiler or emulator is missing are skipped and listed.
#   run_crosstarget_test.sh ONNX2C MODEL_DIR WORK_DIR
set -eu
onnx2c=$1 dir=$2 work=$3
data=$dir/test_data_set_0
rm -rf "$work" && mkdir -p "$work"
have() { command -v "$1" >/dev/null 2>&1; }
for b in portable libxsmm; do
    "$onnx2c" "$dir/model.onnx" -o "$work/$b.c" --gemm=$b --harness
done
have_xsmm=no
if pkg-config --exists libxsmm 2>/dev/null; then have_xsmm=yes; fi

# build NAME BACKEND RUNNER CC FLAGS...: compile, run on the test data, keep the outputs
build_and_run() {
    name=$1 b=$2 runner=$3 cc=$4
    shift 4
    libs=-lm
    [ "$b" = libxsmm ] && libs="-lxsmm -lxsmmnoblas -lm"
    "$cc" -std=c99 "$@" "$work/$b.c" -o "$work/$name" $libs
    mkdir -p "$work/out_$name"
    $runner "$work/$name" --write-outputs "$work/out_$name" "$data" >"$work/$name.log"
}
build_and_run ref portable "" gcc -O2
checked="" skipped=""
compare() {
    for f in "$work"/out_ref/output_*.pb; do
        if ! cmp -s "$f" "$work/out_$1/$(basename "$f")"; then
            echo "crosstarget: $1 gives other bits than x86-64 gcc -O2 for $dir ($(basename "$f"))" >&2
            exit 1
        fi
    done
    checked="$checked $1"
}
for cc in gcc clang; do
    have $cc || { skipped="$skipped $cc"; continue; }
    for o in -O0 -O2 -O3; do
        build_and_run "${cc}${o}" portable "" $cc $o -march=native
        compare "${cc}${o}"
        if [ $have_xsmm = yes ]; then
            build_and_run "${cc}${o}_xsmm" libxsmm "" $cc $o
            compare "${cc}${o}_xsmm"
        fi
    done
done
if have aarch64-linux-gnu-gcc && have qemu-aarch64; then
    build_and_run aarch64 portable qemu-aarch64 aarch64-linux-gnu-gcc -O2 -static
    compare aarch64
else
    skipped="$skipped aarch64"
fi
if have arm-linux-gnueabihf-gcc && have qemu-arm; then
    build_and_run armhf portable qemu-arm arm-linux-gnueabihf-gcc -O2 -static -mfpu=neon-vfpv4 \
        -mfloat-abi=hard
    compare armhf
else
    skipped="$skipped armhf"
fi
echo "bit-identical to x86-64 gcc -O2:$checked${skipped:+ (skipped, not installed:$skipped)}"
