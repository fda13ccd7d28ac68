#!/usr/bin/env python3
"""Inference latency of onnx2c's generated C against onnxruntime, one thread each.

For each model directory (MODEL_DIR/model.onnx and MODEL_DIR/test_data_set_0/input_*.pb) it:
  1. compiles the model with `onnx2c --harness` twice, `--gemm=libxsmm` and `--gemm=portable`
     (the first also with `--report-json`, for the MFLOPs per inference);
  2. builds each with `cc -std=c99 -O2 -march=native OUT.c -o prog` and `-lxsmm -lxsmmnoblas -lm`
     (libxsmm) or `-lm` (portable);
  3. runs `./prog --bench N MODEL_DIR/test_data_set_0`, which checks the outputs against the
     reference ones when the directory has them, then times one warm-up run and N timed runs
     and prints `bench: runs=N median_us=X min_us=Y`;
  4. times onnxruntime on the same model and input: one intra-op and one inter-op thread,
     sequential execution, ORT_ENABLE_ALL, one warm-up run, then N runs of session.run, each
     timed with time.perf_counter_ns; median and minimum as the harness computes them.

It prints one row per model: MFLOPs, the median / min microseconds of each, and the speed-up of
each onnx2c backend over onnxruntime (ORT median / onnx2c median; above 1 means onnx2c is faster).
It reports figures only and asserts nothing about speed; it exits 1 if a model could not be
compiled, built or run (its row says why), or if a harness found an output mismatch.

    .venv/bin/python benchmarks/latency.py [--runs 200] [--onnx2c build-lat/onnx2c]
        [--models DIR ...] [--markdown]

Run it with the project's venv (onnx, numpy, onnxruntime). The timings are wall-clock, so on a
busy machine run it more than once.
"""

import argparse
import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

import onnx
from onnx import numpy_helper

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRONTEND_MODELS = ["mlp_torchscript", "mlp_dynamo_3d", "transformer_layer_dynamo", "conv_bn_relu6"]
CFLAGS = ["-std=c99", "-O2", "-march=native"]
BACKENDS = [("libxsmm", ["-lxsmm", "-lxsmmnoblas", "-lm"]), ("portable", ["-lm"])]
BENCH_RE = re.compile(r"^bench: runs=(\d+) median_us=([0-9.eE+-]+) min_us=([0-9.eE+-]+)\s*$", re.M)


class Failure(Exception):
    """One step of one model failed; the message goes into the table."""


def default_models():
    dirs = sorted(d for d in glob.glob(os.path.join(REPO, "tests", "models", "*", ""))
                  if os.path.isfile(os.path.join(d, "model.onnx")))
    dirs += [os.path.join(REPO, "tests", "frontend", "models", n) for n in FRONTEND_MODELS]
    return [d.rstrip(os.sep) for d in dirs]


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


def run(argv, what, cwd=None):
    r = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if r.returncode != 0:
        raise Failure(f"{what} failed (exit {r.returncode}): {first_line(r.stderr + r.stdout)}")
    return r


def median(sorted_values):
    n = len(sorted_values)
    return sorted_values[n // 2] if n % 2 else (sorted_values[n // 2 - 1] + sorted_values[n // 2]) / 2


# ---- onnx2c -------------------------------------------------------------------------------------

def bench_onnx2c(onnx2c, cc, model_dir, data_dir, backend, libs, runs, work, want_report):
    """Compiles, builds and benchmarks one backend: returns (median_us, min_us, mflops, note)."""
    name = os.path.basename(model_dir)
    c_path = os.path.join(work, f"{name}_{backend}.c")
    prog = os.path.join(work, f"{name}_{backend}")
    argv = [onnx2c, os.path.join(model_dir, "model.onnx"), "-o", c_path, "--harness", f"--gemm={backend}"]
    report = os.path.join(work, f"{name}_{backend}.json")
    if want_report:
        argv += ["--report-json", report]
    run(argv, f"onnx2c --gemm={backend}")
    mflops = None
    if want_report:
        with open(report) as f:
            mflops = json.load(f).get("mflops")
    run([cc] + CFLAGS + [c_path, "-o", prog] + libs, f"{cc} ({backend})")
    r = subprocess.run([prog, "--bench", str(runs), data_dir], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True)
    m = BENCH_RE.search(r.stdout)
    if r.returncode not in (0, 1) or not m:
        raise Failure(f"harness ({backend}) exit {r.returncode}: {first_line(r.stderr + r.stdout)}")
    note = "" if r.returncode == 0 else f"{backend} outputs MISMATCH"
    return float(m.group(2)), float(m.group(3)), mflops, note


# ---- onnxruntime --------------------------------------------------------------------------------

def load_inputs(model_path, data_dir):
    """Feeds for session.run: input_<i>.pb in the order of the graph inputs without initializer."""
    model = onnx.load(model_path, load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    feeds = {}
    for i, name in enumerate(names):
        path = os.path.join(data_dir, f"input_{i}.pb")
        if not os.path.exists(path):
            raise Failure(f"no {path} for input '{name}'")
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        feeds[name] = numpy_helper.to_array(t)
    return feeds


def bench_ort(ort, model_path, data_dir, runs):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        sess = ort.InferenceSession(model_path, so, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - any refusal goes into the table
        raise Failure(f"onnxruntime: {first_line(str(e))}")
    feeds = load_inputs(model_path, data_dir)
    sess.run(None, feeds)  # warm-up, as the harness does
    ns = []
    clock = time.perf_counter_ns
    for _ in range(runs):
        t0 = clock()
        sess.run(None, feeds)
        ns.append(clock() - t0)
    ns.sort()
    return median(ns) / 1e3, ns[0] / 1e3


# ---- table --------------------------------------------------------------------------------------

COLUMNS = ["model", "MFLOPs", "onnx2c libxsmm µs median / min", "onnx2c portable µs median / min",
           "onnxruntime µs median / min", "speed-up libxsmm", "speed-up portable"]
ALIGN_RIGHT = [False, True, True, True, True, True, True]


def fmt_us(v):
    if v is None:
        return "-"
    return f"{v:.1f}" if v < 1000 else f"{v:.0f}"


def fmt_pair(p):
    return "-" if p is None else f"{fmt_us(p[0])} / {fmt_us(p[1])}"


def fmt_speedup(ours, ort):
    if ours is None or ort is None or ours[0] <= 0:
        return "-"
    return f"{ort[0] / ours[0]:.2f}x"


def row_cells(r):
    mflops = r.get("mflops")
    return [r["model"],
            "-" if mflops is None else (f"{mflops:.3f}" if mflops < 10 else f"{mflops:.1f}"),
            fmt_pair(r.get("libxsmm")), fmt_pair(r.get("portable")), fmt_pair(r.get("ort")),
            fmt_speedup(r.get("libxsmm"), r.get("ort")), fmt_speedup(r.get("portable"), r.get("ort"))]


def print_table(rows, markdown):
    cells = [row_cells(r) for r in rows]
    if markdown:
        print("| " + " | ".join(COLUMNS) + " |")
        print("|" + "|".join("---:" if a else "---" for a in ALIGN_RIGHT) + "|")
        for c in cells:
            print("| " + " | ".join(c) + " |")
    else:
        widths = [max(len(x) for x in col) for col in zip(COLUMNS, *cells)]
        def line(c):
            return "  ".join(x.rjust(w) if a else x.ljust(w) for x, w, a in zip(c, widths, ALIGN_RIGHT))
        print(line(COLUMNS).rstrip())
        print("-" * (sum(widths) + 2 * (len(widths) - 1)))
        for c in cells:
            print(line(c).rstrip())
    notes = [f"{r['model']}: {n}" for r in rows for n in r["notes"]]
    if notes:
        print()
        for n in notes:
            print(("- " if markdown else "note: ") + n)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# ---- main ---------------------------------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200, help="timed runs per model and engine (default: %(default)s)")
    ap.add_argument("--onnx2c", default=os.path.join(REPO, "build-lat", "onnx2c"),
                    help="compiler binary (default: %(default)s)")
    ap.add_argument("--models", nargs="+", metavar="DIR",
                    help="model directories (default: tests/models/*/ and tests/frontend/models/{"
                         + ",".join(FRONTEND_MODELS) + "})")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"), help="C compiler (default: $CC or cc)")
    ap.add_argument("--keep", metavar="DIR", help="keep the generated C and programs in DIR")
    return ap.parse_args()


def main():
    args = parse_args()
    if args.runs < 1:
        sys.exit("latency: --runs must be at least 1")
    onnx2c = os.path.abspath(args.onnx2c)
    if not os.access(onnx2c, os.X_OK):
        sys.exit(f"latency: no executable onnx2c at {onnx2c} (build it, or pass --onnx2c)")
    if shutil.which(args.cc) is None:
        sys.exit(f"latency: no C compiler '{args.cc}'")
    import onnxruntime as ort  # after the argument checks: --help works without it

    models = [os.path.abspath(d.rstrip(os.sep)) for d in (args.models or default_models())]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        work, tmp = os.path.abspath(args.keep), None
    else:
        tmp = tempfile.TemporaryDirectory(prefix="onnx2c-latency-")
        work = tmp.name

    rows, failed = [], False
    for model_dir in models:
        name = os.path.basename(model_dir)
        row = {"model": name, "notes": []}
        rows.append(row)
        model_path = os.path.join(model_dir, "model.onnx")
        data_dir = os.path.join(model_dir, "test_data_set_0")
        if not os.path.isfile(model_path) or not os.path.isdir(data_dir):
            row["notes"].append(f"no model.onnx or test_data_set_0 in {model_dir}")
            failed = True
            continue
        print(f"latency: {name} ...", file=sys.stderr, flush=True)
        for backend, libs in BACKENDS:
            try:
                med, mn, mflops, note = bench_onnx2c(onnx2c, args.cc, model_dir, data_dir, backend, libs,
                                                     args.runs, work, want_report=row.get("mflops") is None)
                row[backend] = (med, mn)
                if mflops is not None:
                    row["mflops"] = mflops
                if note:
                    row["notes"].append(note)
                    failed = True
            except Failure as e:
                row["notes"].append(str(e))
                failed = True
        try:
            row["ort"] = bench_ort(ort, model_path, data_dir, args.runs)
        except Failure as e:
            row["notes"].append(str(e))
            failed = True

    print(f"{args.runs} timed runs after 1 warm-up, one thread each; {cpu_name()}, {os.cpu_count()} cores; "
          f"onnxruntime {ort.__version__}; {args.cc} {' '.join(CFLAGS)}")
    if args.markdown:
        print()
    print_table(rows, args.markdown)
    if args.keep:
        print(f"\ngenerated C and programs kept in {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
