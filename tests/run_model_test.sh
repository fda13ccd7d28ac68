#!/bin/sh
# One model test: compile a model with onnx2c, build the C file warning-free, run its harness on
# every test_data_set_* of the model directory with --require-outputs (a missing reference
# fails) and require exit 0. CTest calls this for each
# tests/models/*/ and backend (tests/CMakeLists.txt); it also runs by hand:
#
#   tests/run_model_test.sh [options] ONNX2C MODEL_DIR WORK_DIR
#     --gemm=portable|libxsmm   backend (default portable)
#     --cc=CC                   C compiler for the generated file (default cc)
#     --python=PY               also check the --report-json file with this Python
#     --determinism             instead: compile twice, require byte-identical C files
#     --weights                 put the weights in their own file (--weights NAME_weights.c),
#                               build the two files together, and require the outputs to have
#                               the bits of the one-file build
#     -- ARGS...                extra onnx2c options (e.g. -- -O0)
#
#   e.g. tests/run_model_test.sh --gemm=libxsmm build/onnx2c tests/models/lenet5 /tmp/lenet5
#
# MODEL_DIR/tolerance, when present, holds harness options (e.g. --rtol 0 --atol 0.018: one
# quantum of an int8 model's output; tests/models/gen_qdq_models.py writes it).
# Generated code is built with  CC -std=c99 -O2 -Wall -Wextra -pedantic -Werror  and linked
# with -lm (portable) or -lxsmm -lxsmmnoblas -lpthread -lm -ldl (libxsmm).
set -eu

gemm=portable
cc=cc
python=
mode=run
split=
while [ $# -gt 0 ]; do
    case $1 in
    --gemm=*) gemm=${1#--gemm=} ;;
    --cc=*) cc=${1#--cc=} ;;
    --python=*) python=${1#--python=} ;;
    --determinism) mode=determinism ;;
    --weights) split=1 ;;
    --) shift; break ;;
    -*) echo "run_model_test.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
    shift
done
if [ $# -lt 3 ]; then
    sed -n '2,19p' "$0" >&2
    exit 2
fi
onnx2c=$1 model_dir=${2%/} work=$3
shift 3
if [ $# -gt 0 ] && [ "$1" = "--" ]; then shift; fi
extra="$*"

case $gemm in
portable) libs="-lm" ;;
libxsmm) libs="-lxsmm -lxsmmnoblas -lpthread -lm -ldl" ;;
*) echo "run_model_test.sh: --gemm must be portable or libxsmm" >&2; exit 2 ;;
esac

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "+ $*"; }

[ -x "$onnx2c" ] || fail "no compiler at $onnx2c (build it first)"
[ -f "$model_dir/model.onnx" ] || fail "no $model_dir/model.onnx"
name=$(basename "$model_dir" | tr -c 'A-Za-z0-9_\n' '_')
mkdir -p "$work"
out=$work/$name

# Runs onnx2c; a refusal or crash fails the test with onnx2c's own message shown.
compile() {
    o=$1
    shift
    # shellcheck disable=SC2086 # $extra is a list of options
    step "$onnx2c" "$model_dir/model.onnx" -o "$o" "$@" $extra
    set +e
    # shellcheck disable=SC2086 # $extra is a list of options
    "$onnx2c" "$model_dir/model.onnx" -o "$o" "$@" $extra
    rc=$?
    set -e
    [ $rc -eq 0 ] || fail "onnx2c exited with status $rc"
}

if [ "$mode" = determinism ]; then
    # Same model, same flags, same output file name (it may appear in the file's first
    # comment), two runs in two directories.
    abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
    onnx2c=$(abs "$onnx2c")
    model_dir=$(abs "$model_dir")
    mkdir -p "$work/run1" "$work/run2"
    for d in run1 run2; do
        (cd "$work/$d" && compile "$name.c" --harness --gemm="$gemm")
    done
    cmp "$work/run1/$name.c" "$work/run2/$name.c" ||
        fail "two compilations of $model_dir/model.onnx differ"
    echo "ok: deterministic ($(wc -c <"$work/run1/$name.c") bytes)"
    exit 0
fi

if [ -n "$split" ]; then
    compile "$out.c" --harness --gemm="$gemm" --weights "${out}_weights.c"
    srcs="$out.c ${out}_weights.c"
else
    compile "$out.c" --harness --gemm="$gemm" --report-json "$out.json"
    srcs=$out.c
fi

# The first comment of the file states the compile/link line.
head -c 2 "$out.c" | grep -q '^/[*/]' || fail "$out.c does not start with a comment"
# (A file with no libxsmm call, e.g. an int8 model's, links with -lm alone.)
if [ "$gemm" = libxsmm ] && grep -q '^#include <libxsmm' "$out.c"; then
    sed -n '1,/\*\//p' "$out.c" | grep -q -- '-lxsmm' ||
        fail "first comment of $out.c does not give the libxsmm link flags"
fi

if [ -n "$python" ]; then
    step check "$out.json"
    "$python" - "$out.json" "$out.c" "$(dirname "$0")/models/memory_expected_failures.txt" \
        "$(basename "$model_dir")" "$extra" <<'EOF' || fail "bad --report-json output"
import json, numbers, re, sys
r = json.load(open(sys.argv[1]))
for k in ("nodes_before", "nodes_after", "arena_bytes", "arena_lower_bound_bytes", "node_order_bound_bytes", "weight_bytes"):
    assert isinstance(r.get(k), int) and not isinstance(r[k], bool) and r[k] >= 0, f"{k}: {r.get(k)!r}"
assert isinstance(r.get("mflops"), numbers.Real) and r["mflops"] >= 0, f"mflops: {r.get('mflops')!r}"
for k in ("ops_before", "ops_after", "fusions"):
    assert isinstance(r.get(k), dict), f"{k}: {r.get(k)!r}"
    assert all(isinstance(v, int) and v >= 0 for v in r[k].values()), f"{k}: {r[k]!r}"
assert sum(r["ops_before"].values()) == r["nodes_before"], "ops_before does not sum to nodes_before"
assert sum(r["ops_after"].values()) == r["nodes_after"], "ops_after does not sum to nodes_after"
# One arena figure everywhere: the file's NAME_ARENA_BYTES is the arena the report states (the
# libxsmm init check must not enlarge it).
m = re.search(r"^#define \w+_ARENA_BYTES (\d+)$", open(sys.argv[2]).read(), re.M)
assert m, "no NAME_ARENA_BYTES in the generated file"
assert int(m.group(1)) == r["arena_bytes"], f"NAME_ARENA_BYTES {m.group(1)} != arena_bytes {r['arena_bytes']}"
# Memory (DESIGN.md "Memory figures"): the arena is at most the node-order bound and at most
# 1.10x the live lower bound of onnx2c's own schedule, except for the models listed, with why,
# in tests/models/memory_expected_failures.txt (one that is now within them says so).
arena, bound, lower = r["arena_bytes"], r["node_order_bound_bytes"], r["arena_lower_bound_bytes"]
problems = []
if arena > bound:
    problems.append(f"arena_bytes {arena} > node_order_bound_bytes {bound}")
if arena * 100 > lower * 110:
    problems.append(f"arena_bytes {arena} > 1.10 * arena_lower_bound_bytes {lower}")
# A listed model may not take more than its figure for this configuration (-O1 or -O0).
limits = {f[0]: f[2 if "-O0" in sys.argv[5].split() else 1] for f in
          (line.split() for line in open(sys.argv[3]) if line.strip() and not line.startswith("#"))}
limit = limits.get(sys.argv[4], "-")
if limit != "-" and problems:
    assert arena <= int(limit), f"arena_bytes {arena} grew past the {limit} listed in {sys.argv[3]}"
    print(f"expected memory failure ({sys.argv[3]}): " + "; ".join(problems))
elif limit != "-":
    print(f"NOTE: {sys.argv[4]} is within the memory bounds here: delete its figure from {sys.argv[3]}")
else:
    assert not problems, "; ".join(problems)
EOF
fi

# shellcheck disable=SC2086 # $srcs and $libs are lists
step "$cc" -std=c99 -O2 -Wall -Wextra -pedantic -Werror $srcs -o "$out" $libs
# shellcheck disable=SC2086
"$cc" -std=c99 -O2 -Wall -Wextra -pedantic -Werror $srcs -o "$out" $libs ||
    fail "generated C does not build warning-free with $cc"

tol=
if [ -f "$model_dir/tolerance" ]; then tol=$(cat "$model_dir/tolerance"); fi
set -- "$model_dir"/test_data_set_*
[ -d "$1" ] || fail "no test_data_set_* in $model_dir"
# shellcheck disable=SC2086 # $tol is a list of options
step "$out" --require-outputs $tol "$@"
set +e
# shellcheck disable=SC2086
"$out" --require-outputs $tol "$@"
rc=$?
set -e
if [ -n "$split" ] && [ $rc -eq 0 ]; then
    # the same bits as the one-file build
    compile "${out}_one.c" --harness --gemm="$gemm"
    # shellcheck disable=SC2086
    "$cc" -std=c99 -O2 "${out}_one.c" -o "${out}_one" $libs || fail "one-file build failed"
    rm -rf "$work/split_out" "$work/one_out" && mkdir -p "$work/split_out" "$work/one_out"
    "$out" --write-outputs "$work/split_out" "$1" >/dev/null
    "${out}_one" --write-outputs "$work/one_out" "$1" >/dev/null
    for f in "$work"/one_out/*; do
        cmp "$f" "$work/split_out/$(basename "$f")" ||
            fail "--weights build differs from the one-file build in $(basename "$f")"
    done
fi
case $rc in
0) echo "ok: $name ($gemm, $cc${split:+, --weights})" ;;
1) fail "outputs do not match the reference (harness exit 1)" ;;
2) fail "harness could not read the test data (exit 2)" ;;
*) fail "harness crashed or was killed (status $rc)" ;;
esac
