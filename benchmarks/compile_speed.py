#!/usr/bin/env python3
"""Compile-speed benchmark of onnx2c on synthetic deep models.

Generates stacks of small Linear layers with about 1k, 10k and 100k nodes, compiles each with
`onnx2c model.onnx -o out.c`, and prints one row per model: node count, model bytes, wall
seconds and peak RSS of the compiler process, and the size of the C it wrote. It only reports;
it never asserts on time.

Forms (--form):
  plain     MatMul(x, W_i) -> Add(., b_i) -> Relu                      3 nodes per layer
  torchlib  the addmm pattern torchlib exports for a Linear layer:     7 nodes per layer
              mm = MatMul(x, W_i); a = CastLike(alpha, mm); s = Mul(mm, a)
              c = CastLike(beta, b_i); t = Mul(b_i, c); y = Add(t, s); Relu(y)
  auto      torchlib if the compiler accepts a one-layer torchlib model, else plain (default)
  fold      plain plus, per layer, Mul(b_i, Identity(beta)) with one shared scalar beta:
            5 nodes per layer, 2 of them folded at compile time. The shape of torchlib's
            Mul(b_i, CastLike(beta, b_i)) with ops every onnx2c version has; stresses what
            folding does to a value with one reader per layer (use-list removal).
  dead      plain plus, per layer, an unused MatMul(x, Wdead) with one shared Wdead: 4 nodes
            per layer, 1 of them dead; stresses dead-node elimination on a value with many
            readers.
  shared-input  per layer MatMul(h, W_i) -> Add(., xi), where xi = Identity(x) is the model
            input read by every layer: 2 nodes per layer + 1. Removing the Identity and fusing
            each Add into a Gemm moves one use per layer off a value with many readers.

Every layer has its own small initializers (W_i is WIDTH x WIDTH, b_i is WIDTH) unless
--weights shared, which makes all layers read one W and one b (isolates the cost of emitting
weights). The input is [1, WIDTH].

Peak RSS is the compiler process's own ru_maxrss (see run_measured: it is started by a small
measuring process, GNU time or a minimal Python, so the figure is not polluted by this script).

Uses only onnx and numpy: run it with the project's venv,
    .venv/bin/python benchmarks/compile_speed.py [--onnx2c build-bench/onnx2c]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 18  # CastLike needs 15 or newer
NODES_PER_LAYER = {"plain": 3, "torchlib": 7, "fold": 5, "dead": 4, "shared-input": 2}
USE_GNU_TIME = False
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build_model(form, layers, width, shared, seed=0):
    """A stack of `layers` Linear(+Relu) layers of width `width`."""
    rng = np.random.default_rng(seed)
    nw = 1 if shared else layers
    scale = np.float32(1.0 / np.sqrt(width))
    ws = (rng.standard_normal((nw, width, width), dtype=np.float32) * scale).astype(np.float32)
    bs = (rng.standard_normal((nw, width), dtype=np.float32) * np.float32(0.1)).astype(np.float32)

    inits = []
    for i in range(nw):
        inits.append(numpy_helper.from_array(ws[i], f"W{i}"))
        if form != "shared-input":  # that form has no bias
            inits.append(numpy_helper.from_array(bs[i], f"b{i}"))
    if form == "torchlib":
        # torchlib passes alpha/beta as (double) scalars and casts them like the operand.
        inits.append(numpy_helper.from_array(np.array(1.0, dtype=np.float64), "alpha"))
        inits.append(numpy_helper.from_array(np.array(1.0, dtype=np.float64), "beta"))
    elif form == "fold":
        inits.append(numpy_helper.from_array(np.array(1.0, dtype=np.float32), "beta"))
    elif form == "dead":
        inits.append(numpy_helper.from_array(ws[0], "Wdead"))

    nodes = []
    x = "x"
    if form == "shared-input":
        nodes.append(helper.make_node("Identity", ["x"], ["xi"], name="input_Identity"))
    for i in range(layers):
        w, b = (f"W{0 if shared else i}", f"b{0 if shared else i}")
        p = f"l{i}_"
        if form in ("plain", "fold", "dead"):
            nodes.append(helper.make_node("MatMul", [x, w], [p + "mm"], name=p + "MatMul"))
            if form == "fold":
                nodes += [
                    helper.make_node("Identity", ["beta"], [p + "beta"], name=p + "Identity_beta"),
                    helper.make_node("Mul", [b, p + "beta"], [p + "scaled_b"], name=p + "Mul_b"),
                ]
                b = p + "scaled_b"
            elif form == "dead":
                nodes.append(helper.make_node("MatMul", [x, "Wdead"], [p + "unused"], name=p + "MatMul_dead"))
            nodes += [
                helper.make_node("Add", [p + "mm", b], [p + "add"], name=p + "Add"),
                helper.make_node("Relu", [p + "add"], [p + "y"], name=p + "Relu"),
            ]
        elif form == "shared-input":
            nodes += [
                helper.make_node("MatMul", [x, w], [p + "mm"], name=p + "MatMul"),
                helper.make_node("Add", [p + "mm", "xi"], [p + "y"], name=p + "Add"),
            ]
        else:
            nodes += [
                helper.make_node("MatMul", [x, w], [p + "mm"], name=p + "MatMul"),
                helper.make_node("CastLike", ["alpha", p + "mm"], [p + "alpha"], name=p + "CastLike_alpha"),
                helper.make_node("Mul", [p + "mm", p + "alpha"], [p + "scaled_mm"], name=p + "Mul_mm"),
                helper.make_node("CastLike", ["beta", b], [p + "beta"], name=p + "CastLike_beta"),
                helper.make_node("Mul", [b, p + "beta"], [p + "scaled_b"], name=p + "Mul_b"),
                helper.make_node("Add", [p + "scaled_b", p + "scaled_mm"], [p + "add"], name=p + "Add"),
                helper.make_node("Relu", [p + "add"], [p + "y"], name=p + "Relu"),
            ]
        x = p + "y"
    nodes.append(helper.make_node("Identity", [x], ["y"], name="output"))

    graph = helper.make_graph(
        nodes,
        f"linear_stack_{form}_{layers}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, width])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, width])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="onnx2c-benchmark")
    model.ir_version = 8
    return model


# Peak RSS must be the compiler's own. ru_maxrss of a process spawned straight from this
# script would include this (large) Python process: Linux carries the pre-exec RSS high-water
# mark across execve. So the compiler is started by a small measuring process, GNU time when
# it is installed, else a minimal Python (-I -S) that spawns it and reports wait4's rusage.
# Either way the figure has a small floor (the measuring process's own RSS), printed once.
GNU_TIME = "/usr/bin/time"
PY_MEASURE = r"""
import os, sys
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, ru = os.wait4(pid, 0)
code = os.waitstatus_to_exitcode(status)
with open(sys.argv[1], "w") as f:
    f.write("%d %f %f\n" % (ru.ru_maxrss, ru.ru_utime, ru.ru_stime))
sys.exit(code if code >= 0 else 128 - code)
"""


def have_gnu_time():
    if not os.access(GNU_TIME, os.X_OK):
        return False
    r = subprocess.run([GNU_TIME, "-f", "%M", "true"], capture_output=True, text=True)
    last = r.stderr.strip().splitlines()[-1:]
    return r.returncode == 0 and bool(last) and last[0].isdigit()


def measured(argv, usage_path):
    if USE_GNU_TIME:
        return [GNU_TIME, "-f", "%M %U %S", "-o", usage_path] + argv
    return [sys.executable, "-I", "-S", "-c", PY_MEASURE, usage_path] + argv


def run_measured(argv, log_path, usage_path):
    """Runs argv once; returns (exit status, wall s, user+sys s, peak RSS bytes)."""
    with open(log_path, "wb") as log:
        t0 = time.perf_counter()
        code = subprocess.call(measured(argv, usage_path), stdin=subprocess.DEVNULL, stdout=log,
                               stderr=subprocess.STDOUT)
        wall = time.perf_counter() - t0
    rss_kib, cpu = 0, 0.0
    lines = []
    if os.path.exists(usage_path):
        with open(usage_path) as f:
            lines = [ln.split() for ln in f if ln.strip()]
    if lines and len(lines[-1]) == 3:  # GNU time puts "Command exited ..." lines first
        rss_kib, cpu = int(float(lines[-1][0])), float(lines[-1][1]) + float(lines[-1][2])
    return code, wall, cpu, rss_kib * 1024  # ru_maxrss is in KiB on Linux


def run_compiler(onnx2c, model_path, out_path, extra, log_path):
    return run_measured([onnx2c, model_path, "-o", out_path] + extra, log_path, log_path + ".rusage")


def first_error_line(log_path):
    with open(log_path, errors="replace") as f:
        for line in f:
            if line.strip():
                return line.strip()
    return "(no message)"


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--onnx2c", default=os.path.join(REPO, "build-bench", "onnx2c"),
                    help="compiler binary (default: %(default)s)")
    ap.add_argument("--sizes", default="1000,10000,100000",
                    help="approximate node counts, comma-separated (default: %(default)s)")
    ap.add_argument("--form", choices=["auto", "plain", "torchlib", "fold", "dead", "shared-input"], default="auto",
                    help="layer pattern (default: %(default)s: torchlib if supported, else plain)")
    ap.add_argument("--width", type=int, default=16, help="layer width: W is WIDTH x WIDTH (default: %(default)s)")
    ap.add_argument("--weights", choices=["distinct", "shared"], default="distinct",
                    help="one W,b per layer, or one for all layers (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="compile each model N times; report the fastest wall time and the largest RSS")
    ap.add_argument("--keep", metavar="DIR", help="keep models, outputs and logs in DIR (default: a temp dir)")
    ap.add_argument("--extra", default="", help="extra onnx2c options, space-separated (e.g. '--gemm=portable')")
    return ap.parse_args()


def resolve_form(args, onnx2c, workdir):
    if args.form != "auto":
        return args.form, None
    probe = os.path.join(workdir, "probe_torchlib.onnx")
    onnx.save(build_model("torchlib", 1, 4, False), probe)
    log = os.path.join(workdir, "probe_torchlib.log")
    code, *_ = run_compiler(onnx2c, probe, os.path.join(workdir, "probe_torchlib.c"), [], log)
    if code == 0:
        return "torchlib", None
    return "plain", first_error_line(log)


def main():
    args = parse_args()
    onnx2c = args.onnx2c if os.sep in args.onnx2c else (shutil.which(args.onnx2c) or args.onnx2c)
    onnx2c = os.path.abspath(onnx2c)
    if not os.access(onnx2c, os.X_OK):
        sys.exit(f"compile_speed: no executable onnx2c at {onnx2c} (build it, or pass --onnx2c)")
    try:
        sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        sys.exit(f"compile_speed: --sizes expects comma-separated integers, got '{args.sizes}'")
    if not sizes or min(sizes) < 1 or args.width < 1 or args.repeat < 1:
        sys.exit("compile_speed: sizes, --width and --repeat must be positive")

    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        workdir = os.path.abspath(args.keep)
    else:
        tmp = tempfile.TemporaryDirectory(prefix="onnx2c-bench-")
        workdir = tmp.name

    global USE_GNU_TIME
    USE_GNU_TIME = have_gnu_time()
    _, _, _, floor = run_measured(["/bin/true"], os.path.join(workdir, "floor.log"),
                                  os.path.join(workdir, "floor.rusage"))
    form, why = resolve_form(args, onnx2c, workdir)
    if why:
        print(f"note: torchlib form not supported by this compiler, using plain ({why})")
    per_layer = NODES_PER_LAYER[form]
    extra = args.extra.split()
    print(f"onnx2c: {onnx2c}")
    extra_nodes = 2 if form == "shared-input" else 1
    print(f"form: {form} ({per_layer} nodes/layer + {extra_nodes} Identity), width {args.width}, "
          f"weights {args.weights}, opset {OPSET}, extra args: {' '.join(extra) or '-'}")
    print(f"peak RSS measured by {'GNU time' if USE_GNU_TIME else 'a minimal Python wrapper'} "
          f"(floor: /bin/true shows {floor / 2**20:.1f} MiB)")
    print()
    hdr = f"{'nodes':>8} {'layers':>7} {'model bytes':>12} {'gen s':>6} {'compile s':>10} " \
          f"{'cpu s':>7} {'peak MiB':>9} {'out C bytes':>12}  status"
    print(hdr)
    print("-" * len(hdr))
    sys.stdout.flush()

    failed = False
    for size in sizes:
        layers = max(1, round((size - (2 if form == "shared-input" else 1)) / per_layer))
        t0 = time.perf_counter()
        model = build_model(form, layers, args.width, args.weights == "shared")
        nodes = len(model.graph.node)
        tag = f"{form}_{args.weights}_w{args.width}_{nodes}"
        model_path = os.path.join(workdir, f"{tag}.onnx")
        onnx.save(model, model_path)
        del model
        gen = time.perf_counter() - t0
        out_path = os.path.join(workdir, f"{tag}.c")
        log_path = os.path.join(workdir, f"{tag}.log")
        best_wall, worst_rss, cpu = None, 0, None
        code = 0
        for _ in range(args.repeat):
            code, wall, c, rss = run_compiler(onnx2c, model_path, out_path, extra, log_path)
            if code != 0:
                break
            if best_wall is None or wall < best_wall:
                best_wall, cpu = wall, c
            worst_rss = max(worst_rss, rss)
        model_bytes = os.path.getsize(model_path)
        if code != 0:
            failed = True
            print(f"{nodes:>8} {layers:>7} {model_bytes:>12} {gen:>6.1f} {'-':>10} {'-':>7} {'-':>9} "
                  f"{'-':>12}  FAILED (exit {code}): {first_error_line(log_path)}")
        else:
            out_bytes = os.path.getsize(out_path)
            print(f"{nodes:>8} {layers:>7} {model_bytes:>12} {gen:>6.1f} {best_wall:>10.3f} {cpu:>7.2f} "
                  f"{worst_rss / 2**20:>9.1f} {out_bytes:>12}  ok")
        sys.stdout.flush()
        if not args.keep:
            for p in (model_path, out_path, log_path, log_path + ".rusage"):
                if os.path.exists(p):
                    os.remove(p)

    if args.keep:
        print(f"\nmodels, outputs and logs kept in {workdir}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
