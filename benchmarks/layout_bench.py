#!/usr/bin/env python3
"""--layout=nchw against --layout=nhwc (and auto), interleaved in one run, with onnxruntime.

    .venv/bin/python benchmarks/layout_bench.py [--models NAME|DIR ...] [--rounds 5]
        [--layouts nchw nhwc auto] [--gemm libxsmm|portable] [--onnx2c build/onnx2c]

For each model (names as bench.py takes them; default: the conv models of benchmarks/models
and tests/models) it compiles one harness per layout with `--gemm=G --harness --layout=L`,
builds it with bench.py's flags, and runs ROUNDS interleaved rounds of each harness and of
onnxruntime (bench.py's session: one thread, ORT_ENABLE_ALL), the engines in a rotating order.
The figure of each engine is the minimum over rounds of the round's median. Prints µs per
layout, the ratio of each layout to nchw and to onnxruntime, the Transposes left in the nhwc
graph and the arena against the node-order bound of each layout. Asserts nothing."""
import argparse
import os
import sys
import tempfile

import onnx

import bench

CONV_OPS = {"Conv", "QLinearConv", "ConvInteger"}


def has_conv(model_dir):
    m = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False)
    return any(n.op_type in CONV_OPS for n in m.graph.node)


def bench_one(args, ort, onnx2c, model_dir, work):
    data = os.path.join(model_dir, "test_data_set_0")
    progs, reports = {}, {}
    for layout in args.layouts:
        progs[layout], _, reports[layout] = bench.build_backend(
            onnx2c, args.cc, model_dir, args.gemm, work, os.path.basename(model_dir),
            tag=layout, options=[f"--layout={layout}"])
    model_path = os.path.join(model_dir, "model.onnx")
    sess = bench.ort_session(ort, model_path)
    feeds = bench.load_feeds(model_path, data)
    runs = bench.choose_runs(args, bench.bench_ort(sess, feeds, 3))
    engines = list(args.layouts) + ["onnxruntime"]
    t = bench.rotating_rounds(engines, args.rounds,
                              lambda e: bench.time_engine(e, progs, sess, feeds, data, runs))
    return t, reports


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", metavar="NAME|DIR")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=0)
    ap.add_argument("--round-seconds", type=float, default=0.25)
    ap.add_argument("--layouts", nargs="+", default=["nchw", "nhwc"])
    ap.add_argument("--gemm", choices=["libxsmm", "portable"], default="libxsmm")
    ap.add_argument("--onnx2c", default=os.path.join(bench.REPO, "build", "onnx2c"))
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    args = ap.parse_args()
    if "nchw" not in args.layouts:
        args.layouts.insert(0, "nchw")
    import onnxruntime as ort

    models = ([bench.resolve_model(m) for m in args.models] if args.models
              else [d for d in bench.default_models() if has_conv(d)])
    onnx2c = os.path.abspath(args.onnx2c)
    others = [lay for lay in args.layouts if lay != "nchw"]
    head = (["model", "nchw µs"] + [f"{lay} µs" for lay in others] + ["ort µs", "nchw/ort"] +
            [f"{lay}/ort" for lay in others] + [f"{lay}/nchw" for lay in others] +
            ["Transposes"] + [f"arena {lay}" for lay in args.layouts] + ["bound"])
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    with tempfile.TemporaryDirectory(prefix="onnx2c-layout-") as work:
        for d in models:
            try:
                t, rep = bench_one(args, ort, onnx2c, d, work)
            except bench.Failure as e:
                print(f"| {os.path.basename(d)} | {e} |", flush=True)
                continue
            last = rep[others[-1]] if others else rep["nchw"]
            cells = ([os.path.basename(d), bench.fmt_us(t["nchw"])] +
                     [bench.fmt_us(t[lay]) for lay in others] + [bench.fmt_us(t["onnxruntime"])] +
                     [bench.fmt_ratio(t[lay], t["onnxruntime"]) for lay in args.layouts] +
                     [bench.fmt_ratio(t[lay], t["nchw"]) for lay in others] +
                     [str(last["ops_after"].get("Transpose", 0))] +
                     [f"{rep[lay]['arena_bytes']:,}" for lay in args.layouts] +
                     [f"{rep['nchw']['node_order_bound_bytes']:,}"])
            print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
