#!/bin/sh
# harness_selftest.sh PYTHON CC - end-to-end test of runtime_min/harness.c.
#
# Builds the fake model of harness_selftest.c (and its no-input variant) with the harness,
# writes ONNX test-data directories with numpy/onnx, and checks the harness contract: exit
# status 0 (all match), 1 (a mismatch), 2 (unreadable, malformed, missing or extra data files,
# --require-outputs without a reference, usage error; one line on stderr), the per-output lines,
# --exact/--rtol/--atol, --bench, and that --write-outputs files read back in onnx as the
# expected tensors, byte for byte as onnx itself writes them.
# PYTHON needs numpy and onnx. SELFTEST_CFLAGS adds compiler flags (e.g. sanitizers).
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 PYTHON CC" >&2
    exit 2
fi
PY=$1
CC=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/o2c_harness_selftest.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 1' HUP INT TERM

flags="-std=c99 -Wall -Wextra -pedantic -Werror ${SELFTEST_CFLAGS:-}"
# $CC and $flags may hold several words (e.g. "ccache gcc"), so they stay unquoted.
$CC $flags "$here/harness_selftest.c" -o "$work/prog"
$CC $flags -DSELFTEST_NO_INPUTS "$here/harness_selftest.c" -o "$work/prog0"

D=$work/data
"$PY" - "$D" <<'EOF'
import os, sys
import numpy as np
from onnx import TensorProto, helper, numpy_helper

root = sys.argv[1]
x = np.array([[1.5, -2, 0.25], [np.nan, 3, -0.5]], np.float32)
y = np.array([1, -2, 3], np.int64)
h = np.array([1, -2.5, np.inf, np.nan], np.float16)
inputs = [("x", x), ("y", y), ("h", h)]
outputs = [("sum", x + y.astype(np.float32)), ("y_copy", y.copy()), ("positive", x > 0),
           ("h_copy", h.copy())]

def write(d, kind, i, arr, name):
    os.makedirs(os.path.join(root, d), exist_ok=True)
    t = numpy_helper.from_array(arr, name)
    with open(os.path.join(root, d, f"{kind}_{i}.pb"), "wb") as f:
        f.write(t.SerializeToString())

def data_dir(d, ins=inputs, outs=outputs):
    for i, (name, arr) in enumerate(ins):
        write(d, "input", i, arr, name)
    for i, (name, arr) in enumerate(outs):
        write(d, "output", i, arr, name)

def changed(i, arr):
    return [(n, arr if k == i else a) for k, (n, a) in enumerate(outputs)]

data_dir("ok")
data_dir("noref", outs=[])
data_dir("tol", outs=changed(0, outputs[0][1] * np.float32(1 + 1e-5)))
bad = outputs[0][1].copy(); bad[0, 1] += 1
data_dir("bad", outs=changed(0, bad))
badint = y.copy(); badint[2] += 1
data_dir("badint", outs=changed(1, badint))
badinf = h.copy(); badinf[2] = 65504
data_dir("badinf", outs=changed(3, badinf))
data_dir("badshape", outs=changed(0, outputs[0][1].reshape(3, 2)))
data_dir("wrongshape", ins=[("x", x.reshape(3, 2))] + inputs[1:])
data_dir("wrongtype", ins=[inputs[0], ("y", y.astype(np.int32)), inputs[2]])
data_dir("missing", ins=inputs[:2])
data_dir("extrain", ins=inputs + [("z", y)])
data_dir("extraout", outs=outputs + [("w", y)])
data_dir("noref1")
os.remove(os.path.join(root, "noref1", "output_1.pb"))
data_dir("zeropad")
write("zeropad", "input", "01", x, "x")  # not the name of input 1: a misnamed file
data_dir("trunc")
with open(os.path.join(root, "trunc", "input_0.pb"), "r+b") as f:
    f.truncate(10)
data_dir("badexp")
with open(os.path.join(root, "badexp", "output_1.pb"), "wb") as f:
    f.write(b"\x08\x03\x10\x07\x3a\x05\x01\x02")  # packed int64_data cut short
# Inputs in the typed fields (float_data, int64_data, int32_data) instead of raw_data.
data_dir("typed", outs=outputs)
for i, (name, arr, dt) in enumerate([("x", x, TensorProto.FLOAT), ("y", y, TensorProto.INT64),
                                     ("h", h, TensorProto.FLOAT16)]):
    t = helper.make_tensor(name, dt, arr.shape, arr.reshape(-1))
    assert not t.HasField("raw_data")
    with open(os.path.join(root, "typed", f"input_{i}.pb"), "wb") as f:
        f.write(t.SerializeToString())
# For the model without inputs.
write("konst", "output", 0, np.array([7, -7], np.int32), "konst")
write("konstbad", "output", 0, np.array([7, 7], np.int32), "konst")
write("konstin", "output", 0, np.array([7, -7], np.int32), "konst")
write("konstin", "input", 0, x, "x")
EOF

# Compares DIR_WRITTEN/output_<i>.pb with DIR_EXPECTED/output_<i>.pb: same name, dtype, shape,
# element bits, and the bytes numpy_helper.from_array would write.
check_written() {
    "$PY" - "$1" "$2" <<'EOF'
import os, sys
import numpy as np
import onnx
from onnx import numpy_helper

got_dir, want_dir = sys.argv[1], sys.argv[2]
names = sorted(n for n in os.listdir(want_dir) if n.startswith("output_"))
assert names, want_dir
for n in names:
    want = onnx.load_tensor(os.path.join(want_dir, n))
    with open(os.path.join(got_dir, n), "rb") as f:
        data = f.read()
    got = onnx.TensorProto.FromString(data)
    g, w = numpy_helper.to_array(got), numpy_helper.to_array(want)
    assert got.name == want.name, (n, got.name, want.name)
    assert g.dtype == w.dtype and g.shape == w.shape, (n, g.dtype, g.shape, w.dtype, w.shape)
    assert g.tobytes() == w.tobytes(), (n, g, w)
    assert data == numpy_helper.from_array(g, got.name).SerializeToString(), n
assert len(os.listdir(got_dir)) == len(names), os.listdir(got_dir)
EOF
}

checks=0
fails=0
fail() {
    fails=$((fails + 1))
    echo "FAIL: $*"
    sed 's/^/  | /' "$work/stdout" "$work/stderr"
}

# run STATUS CMD...: CMD exits with STATUS; a status 2 comes with exactly one line on stderr.
run() {
    want=$1
    shift
    rc=0
    "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
    checks=$((checks + 1))
    if [ "$rc" -ne "$want" ]; then
        fail "exit status $rc, want $want: $*"
    elif [ "$want" -eq 2 ] && [ "$(wc -l <"$work/stderr")" -ne 1 ]; then
        fail "want one line on stderr: $*"
    fi
}

# out PATTERN / err PATTERN: the last run printed a line matching the extended regex.
out() {
    checks=$((checks + 1))
    grep -Eq -- "$1" "$work/stdout" || fail "no stdout line matches /$1/"
}
err() {
    checks=$((checks + 1))
    grep -Eq -- "$1" "$work/stderr" || fail "no stderr line matches /$1/"
}

P=$work/prog
F='max_abs_err=[^ ]+ max_rel_err=[^ ]+'

# All outputs match.
run 0 "$P" "$D/ok"
out "^$D/ok: output 0 'sum': max_abs_err=0 max_rel_err=0 ok\$"
out "^$D/ok: output 1 'y_copy': max_abs_err=0 max_rel_err=0 ok\$"
out "^$D/ok: output 2 'positive': max_abs_err=0 max_rel_err=0 ok\$"
out "^$D/ok: output 3 'h_copy': max_abs_err=0 max_rel_err=0 ok\$"
run 0 "$P" --exact "$D/ok"
run 0 "$P" "$D/typed"
run 0 "$P" -- "$D/ok"

# Within tolerance, but not bit-exact (the NaN element stays equal).
run 0 "$P" "$D/tol"
out "output 0 'sum': $F ok\$"
run 0 "$P" --rtol=1e-4 --atol=0 "$D/tol"
run 1 "$P" --rtol 0 --atol 0 "$D/tol"
out "output 0 'sum': $F MISMATCH \(5 of 6 elements, first at index 0: got 2.5 want 2.5000"
run 1 "$P" --exact "$D/tol"
out "MISMATCH \(5 of 6 elements, first at index 0: got 2.5 \(0x40200000\) want 2.50002[0-9]* \(0x4020"
out "output 1 'y_copy': $F ok\$"

# Mismatches.
run 1 "$P" "$D/bad"
out "^$D/bad: output 0 'sum': max_abs_err=1 max_rel_err=0.333 MISMATCH \(1 of 6 elements, first at index 1: got -4 want -3\)\$"
out "output 3 'h_copy': $F ok\$"
run 1 "$P" "$D/badint"
out "output 1 'y_copy': max_abs_err=1 max_rel_err=0.25 MISMATCH \(1 of 3 elements, first at index 2: got 3 want 4\)\$"
run 1 "$P" "$D/badinf"
out "output 3 'h_copy': max_abs_err=inf max_rel_err=inf MISMATCH \(1 of 4 elements, first at index 2: got inf want 65504\)\$"
run 1 "$P" "$D/badshape"
out "output 0 'sum': MISMATCH \(model gives float \[2,3\], expected float \[3,2\]\)\$"

# Expected outputs are optional, unless --require-outputs (what every test of the suite uses).
run 0 "$P" "$D/noref"
out "output 0 'sum': no output_0.pb, not compared\$"
run 0 "$P" "$D/noref1"
out "output 1 'y_copy': no output_1.pb, not compared\$"
run 2 "$P" --require-outputs "$D/noref1"
err "^[^ ]*: error: $D/noref1: output 1 'y_copy': no output_1.pb \(--require-outputs\)\$"
out "output 0 'sum': $F ok\$"
run 0 "$P" --require-outputs "$D/ok"
run 2 "$P" --require-outputs "$D/ok" "$D/noref1"

# Unreadable or malformed input.
run 2 "$P" "$D/wrongshape"
err "input_0.pb: shape \[3,2\], but model input 0 'x' has shape \[2,3\]\$"
run 2 "$P" "$D/wrongtype"
err "input_1.pb: data_type int32, but model input 1 'y' is int64\$"
# Missing and extra files: the data is not for this model.
run 2 "$P" "$D/missing"
err "^[^ ]*: error: $D/missing/input_2.pb: missing: model input 2 'h' has no file\$"
run 2 "$P" "$D/extrain"
err "^[^ ]*: error: $D/extrain/input_3.pb: extra file: the model has 3 inputs \(input_0.pb \.\.\.\)\$"
run 2 "$P" "$D/extraout"
err "^[^ ]*: error: $D/extraout/output_4.pb: extra file: the model has 4 outputs \(output_0.pb \.\.\.\)\$"
run 2 "$P" "$D/zeropad"
err "^[^ ]*: error: $D/zeropad/input_01.pb: extra file: the model has 3 inputs"
run 2 "$P" "$D/trunc"
err "input_0.pb: "
run 2 "$P" "$D/badexp"
err "output_1.pb: "
run 2 "$P" "$D/does-not-exist"
err "^[^ ]*: error: $D/does-not-exist: cannot open directory: No such file or directory\$"

# Several directories: the worst status wins, and every directory is still checked.
run 0 "$P" "$D/ok" "$D/tol"
run 1 "$P" "$D/ok" "$D/bad"
run 2 "$P" "$D/trunc" "$D/bad"
out "^$D/bad: output 0 'sum': $F MISMATCH"

# Usage errors.
run 2 "$P"
run 2 "$P" --frobnicate "$D/ok"
run 2 "$P" "$D/ok" --rtol
run 2 "$P" --rtol abc "$D/ok"
run 2 "$P" --atol -1 "$D/ok"
run 2 "$P" --bench 0 "$D/ok"
run 2 "$P" --bench 5x "$D/ok"
run 0 "$P" --help
out "^usage: "

# Benchmark: after the comparisons, also after a mismatch, and without data (zero inputs).
run 0 "$P" --bench 7 "$D/ok"
out "^bench: runs=7 median_us=[0-9]+\.[0-9]+ min_us=[0-9]+\.[0-9]+ init_us=[0-9]+\.[0-9]+\$"
run 1 "$P" --bench 2 "$D/bad"
out "^bench: runs=2 "
run 0 "$P" --bench 3
out "^bench: runs=3 "

# --write-outputs: the files are what onnx would write for the expected arrays, and the
# harness accepts its own files as exact references.
run 0 "$P" --write-outputs "$work/w" "$D/ok"
checks=$((checks + 1))
check_written "$work/w" "$D/ok" || fail "--write-outputs of ok"
run 0 "$P" --write-outputs "$work/w2" "$D/noref"
checks=$((checks + 1))
check_written "$work/w2" "$D/ok" || fail "--write-outputs of noref"
mkdir "$work/again"
cp "$D"/ok/input_*.pb "$work/w"/output_*.pb "$work/again/"
run 0 "$P" --exact "$work/again"
run 2 "$P" --write-outputs "$work/no/such/parent" "$D/ok"

# A model without inputs.
P0=$work/prog0
run 0 "$P0" "$D/konst"
out "output 0 'konst': max_abs_err=0 max_rel_err=0 ok\$"
run 1 "$P0" "$D/konstbad"
out "MISMATCH \(1 of 2 elements, first at index 1: got -7 want 7\)\$"
run 0 "$P0" --bench 2
run 2 "$P0" "$D/konstin"
err "^[^ ]*: error: $D/konstin/input_0.pb: extra file: the model has 0 inputs \(input_0.pb \.\.\.\)\$"
run 0 "$P0" --write-outputs "$work/w0" "$D/konst"
checks=$((checks + 1))
check_written "$work/w0" "$D/konst" || fail "--write-outputs without inputs"

echo "harness_selftest: $((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
