#!/bin/sh
# The portable output on a Cortex-M4 (arm-none-eabi-gcc, newlib, -mfpu=fpv4-sp-d16 hard float):
# built -std=c99 -Wall -Wextra -pedantic -Werror, linked with tests/cortex_m4/ (vector table,
# linker script, semihosting main), run under qemu-system-arm -M mps2-an386 on the model's
# test input; its output bytes must equal those of the x86-64 gcc -O2 portable build.
# Without qemu-system-arm it only compiles and links.
#   run_cortex_m4_test.sh ONNX2C MODEL_DIR WORK_DIR PYTHON
set -eu
onnx2c=$1 dir=$2 work=$3 py=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
"$onnx2c" "$dir/model.onnx" -o "$work/m.c" --name m --gemm=portable
flags="-std=c99 -O2 -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
arm-none-eabi-gcc $flags -Wall -Wextra -Werror -c "$here/cortex_m4/startup.c" -o "$work/startup.o"
arm-none-eabi-gcc $flags -Wall -Wextra -pedantic -Werror -DMODEL=m '-DMODEL_C="m.c"' -I"$work" \
    -c "$here/cortex_m4/run_model.c" -o "$work/run_model.o"
crt0=$(arm-none-eabi-gcc $flags -print-file-name=rdimon-crt0.o)
arm-none-eabi-gcc $flags -T "$here/cortex_m4/link.ld" --specs=rdimon.specs -nostartfiles "$crt0" \
    "$work/startup.o" "$work/run_model.o" -o "$work/m.elf" -lm
arm-none-eabi-size "$work/m.elf"
if ! command -v qemu-system-arm >/dev/null 2>&1; then
    echo "cortex-m4: built $work/m.elf (qemu-system-arm not installed: not run)"
    exit 0
fi
# the x86-64 reference bits
"$onnx2c" "$dir/model.onnx" -o "$work/ref.c" --gemm=portable --harness
gcc -std=c99 -O2 "$work/ref.c" -o "$work/ref" -lm
mkdir -p "$work/ref_out"
"$work/ref" --write-outputs "$work/ref_out" "$dir/test_data_set_0" >/dev/null
"$py" - "$dir/test_data_set_0" "$work" to_raw <<'PY'
import sys, glob, os, onnx
from onnx import numpy_helper
data, work = sys.argv[1], sys.argv[2]
for i in range(len(glob.glob(data + "/input_*.pb"))):
    t = onnx.TensorProto()
    t.ParseFromString(open("%s/input_%d.pb" % (data, i), "rb").read())
    a = numpy_helper.to_array(t)
    a.astype(a.dtype.newbyteorder("<")).tofile("%s/in%d.bin" % (work, i))
PY
(cd "$work" && timeout 600 qemu-system-arm -M mps2-an386 -nographic -monitor none \
    -semihosting-config enable=on,target=native -kernel m.elf)
"$py" - "$work" <<'PY'
import sys, glob, onnx, numpy as np
from onnx import numpy_helper
work = sys.argv[1]
refs = sorted(glob.glob(work + "/ref_out/output_*.pb"))
for i in range(len(refs)):
    t = onnx.TensorProto()
    t.ParseFromString(open("%s/ref_out/output_%d.pb" % (work, i), "rb").read())
    want = numpy_helper.to_array(t)
    want = want.astype(want.dtype.newbyteorder("<")).tobytes()
    got = open("%s/out%d.bin" % (work, i), "rb").read()
    if got != want:
        sys.exit("cortex-m4: output %d differs from x86-64 gcc -O2 (%d vs %d bytes)" % (i, len(got), len(want)))
print("cortex-m4: %d output(s) bit-identical to x86-64 gcc -O2" % len(refs))
PY
