#!/bin/sh
# One microcontroller example (examples/digits, examples/kws): compile its model with onnx2c
# (portable backend, a header; with --weights the weights in their own file and the model
# built with -DNAME_NO_STATIC_ARENA, main.c providing the arena), build main.c
# for the host (gcc -std=c99 -Wall -Wextra -pedantic -Werror) and for a Cortex-M4
# (arm-none-eabi-gcc, newlib, this folder's start-up code and linker script), run both (the
# Cortex-M4 under qemu-system-arm -M mps2-an386 with semihosting), and require
#  - the host's printed probabilities to match onnxruntime's (the example's
#    test_data_set_0/output_0.pb) within 1e-5 and its class to be onnxruntime's argmax,
#  - the Cortex-M4 to print exactly the same bytes as the host (the same bits),
#  - with --weights, the Cortex-M4 weights object to hold NAME_WEIGHT_BYTES bytes (the flash
#    figure of --report and the header), give or take each weight's alignment padding,
#  - the model's Cortex-M4 code (NAME.o's .text without the weights) to be within a factor of
#    two of --report-json's code_bytes_estimate.
# Leaves WORK/m4/NAME.elf, WORK/NAME.json (--report-json) and the objects for size_table.sh.
#   run_example.sh ONNX2C EXAMPLE_DIR WORK PYTHON NAME [--weights]
set -eu
onnx2c=$1 dir=$2 work=$3 py=$4 name=$5
split=${6:-}
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "run_example: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/m4"
srcs=$name.c
defs=
opts="--name $name --gemm=portable --header $work/$name.h --report-json $work/$name.json"
if [ "$split" = --weights ]; then
    opts="$opts --weights $work/${name}_weights.c"
    srcs="$srcs ${name}_weights.c"
    defs=-D${name}_NO_STATIC_ARENA
fi
# shellcheck disable=SC2086 # $opts is a list of options
"$onnx2c" "$dir/model.onnx" -o "$work/$name.c" $opts

# host
cd "$work"
# shellcheck disable=SC2086 # $srcs is a list of files
gcc -std=c99 -O2 -Wall -Wextra -pedantic -Werror $defs -I. -I"$dir" "$dir/main.c" $srcs -o host -lm
./host >host.txt || fail "the host build exited with status $?"
cat host.txt
"$py" - "$dir/test_data_set_0/output_0.pb" host.txt <<'PY'
import re, sys
import numpy as np
import onnx
from onnx import numpy_helper
t = onnx.TensorProto()
t.ParseFromString(open(sys.argv[1], "rb").read())
want = numpy_helper.to_array(t).ravel()
text = open(sys.argv[2]).read()
got = np.array([int(h, 16) for h in re.findall(r"^prob \d+ 0x([0-9a-f]{8})$", text, re.M)],
               np.uint32).view(np.float32)
if got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6):
    sys.exit(f"run_example: the printed probabilities {got} are not onnxruntime's {want}")
best = int(re.search(r"(class|keyword) (\d+)", text).group(2))
if best != int(want.argmax()):
    sys.exit(f"run_example: printed class {best}, onnxruntime's argmax is {int(want.argmax())}")
print(f"run_example: host output matches onnxruntime (class {best})")
PY

# Cortex-M4: each file as its own object, so that size_table.sh can show the model's share
flags="-std=c99 -O2 -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
# (startup.c's vector table converts the stack address to a handler: not -pedantic)
# shellcheck disable=SC2086 # $flags is a list of flags
arm-none-eabi-gcc $flags -Wall -Wextra -Werror -c "$here/startup.c" -o m4/startup.o
objs=m4/startup.o
for src in "$dir/main.c" $srcs; do
    obj=m4/$(basename "$src" .c).o
    # shellcheck disable=SC2086
    arm-none-eabi-gcc $flags -Wall -Wextra -pedantic -Werror $defs -I. -I"$dir" -c "$src" -o "$obj"
    objs="$objs $obj"
done
crt0=$(arm-none-eabi-gcc $flags -print-file-name=rdimon-crt0.o)
# shellcheck disable=SC2086
arm-none-eabi-gcc $flags -T "$here/link.ld" --specs=rdimon.specs -nostartfiles "$crt0" $objs \
    -o "m4/$name.elf" -lm
arm-none-eabi-size "m4/$name.elf"
if [ "$split" = --weights ]; then
    want=$(sed -n "s/^#define ${name}_WEIGHT_BYTES //p" "$name.h")
    count=$(grep -c '^const' "${name}_weights.c")
    got=$(arm-none-eabi-size "m4/${name}_weights.o" | awk 'NR == 2 { print $1 + $2 }')
    [ "$got" -ge "$want" ] && [ "$got" -le $((want + 8 * count)) ] ||
        fail "m4/${name}_weights.o holds $got bytes, ${name}_WEIGHT_BYTES is $want ($count weights)"
    echo "run_example: the weights object holds $got bytes for ${name}_WEIGHT_BYTES $want"
fi
code=$(arm-none-eabi-size "m4/$name.o" | awk 'NR == 2 { print $1 }')
[ "$split" = --weights ] || code=$((code - $(sed -n "s/^#define ${name}_WEIGHT_BYTES //p" "$name.h")))
estimate=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["code_bytes_estimate"])' \
    "$name.json")
[ $((2 * code)) -ge "$estimate" ] && [ "$code" -le $((2 * estimate)) ] ||
    fail "the model's code is $code bytes, --report estimates $estimate"
echo "run_example: model code $code bytes, --report estimates $estimate"
if ! command -v qemu-system-arm >/dev/null 2>&1; then
    echo "run_example: built m4/$name.elf (qemu-system-arm not installed: not run)"
    exit 0
fi
timeout 600 qemu-system-arm -M mps2-an386 -nographic -monitor none \
    -semihosting-config enable=on,target=native -kernel "m4/$name.elf" >m4.txt ||
    fail "the Cortex-M4 run exited with status $?"
cmp host.txt m4.txt || fail "the Cortex-M4 printed other bytes than the host (above: host)"
echo "run_example: Cortex-M4 output bit-identical to the host's"
