#!/bin/sh
# Installs onnx2c into a fresh prefix, builds examples/cmake_consumer against it with
# find_package(onnx2c) and onnx2c_add_model (a C and a C++ program), runs both on the example's
# test input and compares their scores with onnxruntime's reference output.
#   run_install_test.sh BUILD_DIR WORK_DIR PYTHON GEMM
set -eu
build=$1 work=$2 py=$3 gemm=$4
src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
test -x "$work/prefix/bin/onnx2c"
test -f "$work/prefix/share/man/man1/onnx2c.1"
"$work/prefix/bin/onnx2c" --version | grep -q '^onnx2c [0-9]'
cmake -S "$src/examples/cmake_consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DGEMM="$gemm" >"$work/configure.log"
cmake --build "$work/consumer" >"$work/build.log"
data=$src/examples/mlp/test_data_set_0
"$py" - "$data" "$work" <<'PY'
import sys, subprocess, numpy as np, onnx
from onnx import numpy_helper
data, work = sys.argv[1], sys.argv[2]
def load(p):
    t = onnx.TensorProto()
    t.ParseFromString(open(p, "rb").read())
    return numpy_helper.to_array(t)
x, want = load(data + "/input_0.pb"), load(data + "/output_0.pb")
x.astype("<f4").tofile(work + "/input.f32")
for prog in ("classify", "classify_cpp"):
    out = work + "/" + prog + ".f32"
    line = subprocess.run([work + "/consumer/" + prog, work + "/input.f32", out], check=True,
                          capture_output=True, text=True).stdout.strip()
    got = np.fromfile(out, dtype="<f4").reshape(want.shape)
    if not np.allclose(got, want, rtol=1e-3, atol=1e-5):
        sys.exit("%s: scores differ from onnxruntime's: max abs err %g" % (prog, abs(got - want).max()))
    if not line.startswith("class %d" % int(want.argmax())):
        sys.exit("%s: printed '%s', onnxruntime's class is %d" % (prog, line, int(want.argmax())))
    print("%s: %s, matches onnxruntime" % (prog, line))
PY
