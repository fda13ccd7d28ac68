#!/usr/bin/env python3
"""Two onnx2c compilers side by side: a change's speed, arena and bits, in one interleaved run.

    .venv/bin/python benchmarks/ab.py --base OLD/onnx2c --new build/onnx2c \
        [--models NAME|DIR ...] [--rounds 5] [--gemm libxsmm|portable] [--extra "--layout=nhwc"]

For each model (names as bench.py takes them) it compiles one harness with each compiler
(`--harness --gemm=G` plus --extra), builds both with bench.py's flags, checks that the two
programs write the same output bytes (`--write-outputs`), then runs ROUNDS interleaved rounds
of base, new and onnxruntime (bench.py's session: one thread, ORT_ENABLE_ALL) in a rotating
order. Each engine's figure is the minimum over rounds of the round's median. Prints µs of each,
new / base (the change), new / ORT and base / ORT, both arenas, and whether the bits are the
same. Asserts nothing about speed; exits 1 when a model fails to build or run or mismatches
its reference.
"""
import argparse
import filecmp
import os
import sys
import tempfile

import bench


def same_bits(progs, data, work):
    """True when both programs write byte-identical output files for the test inputs."""
    dirs = []
    for tag, prog in progs.items():
        out = os.path.join(work, f"out_{tag}")
        os.makedirs(out, exist_ok=True)
        bench.run([prog, "--write-outputs", out, "--atol", "1e30", data], f"harness ({tag})")
        dirs.append(out)
    files = sorted(os.listdir(dirs[0]))
    match, mismatch, errors = filecmp.cmpfiles(dirs[0], dirs[1], files, shallow=False)
    return not mismatch and not errors and files == sorted(os.listdir(dirs[1]))


def bench_one(args, ort, model_dir, work):
    data = os.path.join(model_dir, "test_data_set_0")
    progs, reports = {}, {}
    for tag, onnx2c in (("base", args.base), ("new", args.new)):
        progs[tag], _, reports[tag] = bench.build_backend(
            os.path.abspath(onnx2c), args.cc, model_dir, args.gemm, work,
            os.path.basename(model_dir), tag=tag, options=args.extra.split())
    bits = same_bits(progs, data, work)
    model_path = os.path.join(model_dir, "model.onnx")
    sess = bench.ort_session(ort, model_path)
    feeds = bench.load_feeds(model_path, data)
    runs = bench.choose_runs(args, bench.bench_ort(sess, feeds, 3))
    engines = ["base", "new", "onnxruntime"]
    t = bench.rotating_rounds(engines, args.rounds,
                              lambda e: bench.time_engine(e, progs, sess, feeds, data, runs))
    return t, reports, bits


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    bench.add_compare_args(ap)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=0)
    ap.add_argument("--round-seconds", type=float, default=0.25)
    args = ap.parse_args()
    import onnxruntime as ort

    head = ["model", "base µs", "new µs", "ort µs", "new/base", "new/ort", "base/ort",
            "arena base", "arena new", "same bits"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head), flush=True)
    failed = False
    with tempfile.TemporaryDirectory(prefix="onnx2c-ab-") as work:
        for d in (bench.resolve_model(m) for m in args.models):
            try:
                t, rep, bits = bench_one(args, ort, d, work)
            except bench.Failure as e:
                print(f"| {os.path.basename(d)} | {e} |", flush=True)
                failed = True
                continue
            cells = [os.path.basename(d), bench.fmt_us(t["base"]), bench.fmt_us(t["new"]),
                     bench.fmt_us(t["onnxruntime"]), bench.fmt_ratio(t["new"], t["base"]),
                     bench.fmt_ratio(t["new"], t["onnxruntime"]),
                     bench.fmt_ratio(t["base"], t["onnxruntime"]),
                     f"{rep['base']['arena_bytes']:,}", f"{rep['new']['arena_bytes']:,}",
                     "yes" if bits else "NO"]
            print("| " + " | ".join(cells) + " |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
