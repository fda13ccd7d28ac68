#!/bin/sh
# Command-line conventions of issue 11: -o - writes the C to stdout (the same bytes as -o FILE,
# nothing on failure, --report moved to stderr), default names do not collide for
# DIR/model.onnx, generated files carry no directory names, --version prints the version,
# --help gives an example under every option, --weights writes a weights file; --layout=auto
# writes what the layout it chose writes.
#   run_cli_test.sh ONNX2C WORK_DIR VERSION
set -eu
onnx2c=$1 work=$2 version=$3
src=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "run_cli_test: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/a/mlp" "$work/b/other"
cp "$src/examples/mlp/model.onnx" "$work/a/mlp/model.onnx"
cp "$src/examples/mlp/model.onnx" "$work/b/other/model.onnx"

[ "$("$onnx2c" --version)" = "onnx2c $version" ] || fail "--version does not print 'onnx2c $version'"

# -o - gives exactly the bytes of -o NAME.c, and the report goes to stderr
"$onnx2c" "$work/a/mlp/model.onnx" -o - --report >"$work/stdout.c" 2>"$work/report.txt"
"$onnx2c" "$work/a/mlp/model.onnx" -o "$work/mlp.c"
cmp -s "$work/stdout.c" "$work/mlp.c" || fail "-o - differs from -o mlp.c"
grep -q '^nodes:' "$work/report.txt" || fail "--report with -o - is not on stderr"
# a failing compile prints no C and leaves no file named '-'
if (cd "$work" && "$onnx2c" a/mlp/model.onnx -o - --shape nosuch=1 >"$work/fail.c" 2>/dev/null); then
    fail "a bad --shape did not fail"
fi
[ ! -s "$work/fail.c" ] || fail "a failed -o - compile printed C"
[ ! -e "$work/-" ] || fail "-o - created a file named '-'"

# dir/model.onnx takes the folder's name; two such models link together
"$onnx2c" "$work/a/mlp/model.onnx" -o "$work/one.c" --gemm=portable
"$onnx2c" "$work/b/other/model.onnx" -o "$work/two.c" --gemm=portable
grep -q '^int mlp_run(' "$work/one.c" || fail "a/mlp/model.onnx is not named mlp"
grep -q '^int other_run(' "$work/two.c" || fail "b/other/model.onnx is not named other"
printf 'int main(void) { return 0; }\n' >"$work/main.c"
cc -std=c99 "$work/one.c" "$work/two.c" "$work/main.c" -o "$work/both" -lm ||
    fail "two models from DIR/model.onnx do not link together"

# no directory of the machine in the generated files
"$onnx2c" "$work/a/mlp/model.onnx" -o "$work/mlp.c" --header "$work/mlp.h"
if grep -n "$work" "$work/mlp.c" "$work/mlp.h"; then
    fail "generated files name the folders of the command line"
fi
# --help: under every option (after its description's continuation lines, indented 25) comes an
# example command, indented 27
"$onnx2c" --help >"$work/help.txt"
awk 'function check() { if (opt != "" && !seen) { print opt; bad = 1 } }
     /^  -/ { check(); opt = $1; seen = 0; if (opt == "--help") opt = ""; next }
     substr($0, 1, 34) == "                           onnx2c " { seen = 1 }
     END { check(); exit bad }' "$work/help.txt" || fail "--help has options without an example (above)"

# --weights: the weights move to their own file, with external linkage and the model's prefix
"$onnx2c" "$work/a/mlp/model.onnx" -o "$work/w.c" --weights "$work/w_weights.c" --gemm=portable
grep -q '^extern const' "$work/w.c" || fail "--weights: the model file declares no weights"
if grep -q '^static const' "$work/w_weights.c" || ! grep -q '^const .* mlp_w' "$work/w_weights.c"; then
    fail "--weights: the weights file does not define external mlp_w* weights"
fi
if grep -q '^mlp_WEIGHTS_SECTION' "$work/w.c"; then fail "--weights: weights left in the model file"; fi
if "$onnx2c" "$work/a/mlp/model.onnx" -o "$work/w.c" --weights - 2>/dev/null; then
    fail "--weights - was accepted"
fi

# --layout=auto where channels-last takes the arena over the node-order bound and NCHW plans
# less (dw_residual): the C and the report are those of --layout=nchw (the report once
# counted the fusions of both compiles), and --emit-onnx still reads the kept model
dwr=$src/tests/frontend/models/dw_residual/model.onnx
for l in auto nchw nhwc; do
    mkdir -p "$work/$l"
    "$onnx2c" "$dwr" -o "$work/$l/dwr.c" --layout=$l --report-json "$work/$l/dwr.json" \
        --emit-onnx "$work/$l/dwr.onnx"
done
json_int() { grep -o "\"$1\": *[0-9]*" "$2" | grep -o '[0-9]*$'; }
[ "$(json_int arena_bytes "$work/nhwc/dwr.json")" -gt \
  "$(json_int node_order_bound_bytes "$work/nhwc/dwr.json")" ] ||
    fail "dw_residual no longer takes channels-last over its bound: the auto check below tests nothing"
cmp -s "$work/auto/dwr.c" "$work/nchw/dwr.c" || fail "--layout=auto: not the C of --layout=nchw"
cmp -s "$work/auto/dwr.json" "$work/nchw/dwr.json" ||
    fail "--layout=auto: not the --report-json of --layout=nchw"
cmp -s "$work/auto/dwr.onnx" "$work/nchw/dwr.onnx" ||
    fail "--layout=auto: not the --emit-onnx of --layout=nchw"
echo "run_cli_test: ok"
