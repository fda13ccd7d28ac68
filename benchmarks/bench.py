#!/usr/bin/env python3
"""The onnx2c benchmark: latency of both backends against onnxruntime, memory, init and build cost.

    .venv/bin/python benchmarks/bench.py [--models NAME|DIR ...] [--rounds 5] [--runs N]
        [--markdown FILE] [--keep DIR] [--only-backend libxsmm|portable] [--onnx2c build/onnx2c]

Models: every benchmarks/models/*/ (made by benchmarks/gen_models.py; absent until a developer
runs it), every tests/models/*/ and the frontend models in FRONTEND_MODELS; each folder holds
model.onnx and test_data_set_0/. For each model it

  1. compiles it with `onnx2c --harness --gemm=libxsmm --report-json` and `--gemm=portable`;
  2. builds each with `cc -std=c99 -O3 -march=native` (+ -lxsmm -lxsmmnoblas -lm, or -lm);
  3. compiles the libxsmm C once more with `gcc -std=c99 -O2 -c` through a measuring process
     (GNU time, or compile_speed.py's minimal Python) for its wall seconds and peak RSS: what
     building the model costs a user;
  4. runs ROUNDS interleaved rounds, each one `prog --bench N test_data_set_0` per backend
     (the harness checks the outputs against the reference, then times a warm-up and N runs)
     and N session.run calls of onnxruntime (one intra-op and one inter-op thread, sequential,
     ORT_ENABLE_ALL; one warm-up per round), the engines in a rotating order; each engine's
     figure is the minimum over rounds of the round's median, so a burst of other work on the
     machine in one round does not move it.

N is --runs, or by default chosen per model so that one engine's round takes about
--round-seconds (from 5 to 2000 runs), the same N for all three engines.

It prints the machine, the single-core FP32 peak it measured (benchmarks/fma_peak.c, built with
-O3 -march=native), and per model: µs of each engine, the ratios onnx2c / onnxruntime (below 1:
onnx2c is faster), GFLOP/s of the libxsmm build and its share of the peak, the arena next to
the node-order bound and the schedule's live lower bound (--report-json; n/a where the compiler
does not report it), init µs (the model's init call, from the harness), and the C size and the
gcc -O2 seconds and peak MB. A model that fails to compile, build or run, or whose outputs
mismatch, shows its first error line, and the script goes on; it exits 1 at the end if any did.
It asserts nothing about speed.

Uses only onnx, numpy and onnxruntime (the project's .venv).
"""

import argparse
import glob
import json
import math
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

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import compile_speed  # noqa: E402 - its measuring process gives a child's own peak RSS

FRONTEND_MODELS = ["mlp_torchscript", "mlp_dynamo_3d", "transformer_layer_dynamo", "conv_bn_relu6"]
# The generated models' folder; ONNX2C_BENCH_MODELS points a git worktree at another clone's.
MODELS = os.environ.get("ONNX2C_BENCH_MODELS", os.path.join(HERE, "models"))
CFLAGS = ["-std=c99", "-O3", "-march=native"]
BUILD_COST_FLAGS = ["-std=c99", "-O2", "-c"]
BACKEND_LIBS = {"libxsmm": ["-lxsmm", "-lxsmmnoblas", "-lm"], "portable": ["-lm"]}
BENCH_RE = re.compile(r"^bench: runs=(\d+) median_us=([0-9.eE+-]+) min_us=([0-9.eE+-]+)"
                      r"(?: init_us=([0-9.eE+-]+))?\s*$", re.M)
TIMEOUT_S = 3600


class Failure(Exception):
    """One step of one model failed; the message goes into the table."""


def first_line(text):
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return "(no message)"


def run(argv, what, timeout=TIMEOUT_S):
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"{what}: timed out after {timeout} s")
    if r.returncode != 0:
        raise Failure(f"{what} failed (exit {r.returncode}): {first_line(r.stderr + r.stdout)}")
    return r


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


# ---- models -------------------------------------------------------------------------------------

def model_info(model_dir):
    path = os.path.join(model_dir, "info.json")
    if os.path.isfile(path):
        with open(path) as f:
            return json.load(f)
    return {}


def default_models():
    """Generated benchmark models in generation order, then the test and frontend models."""
    gen = [d.rstrip(os.sep) for d in glob.glob(os.path.join(MODELS, "*", ""))
           if os.path.isfile(os.path.join(d, "model.onnx"))]
    gen.sort(key=lambda d: (model_info(d).get("seed", 1 << 30), os.path.basename(d)))
    tests = sorted(d.rstrip(os.sep) for d in glob.glob(os.path.join(REPO, "tests", "models", "*", ""))
                   if os.path.isfile(os.path.join(d, "model.onnx")))
    frontend = [os.path.join(REPO, "tests", "frontend", "models", n) for n in FRONTEND_MODELS]
    return gen + tests + frontend


def add_compare_args(ap):
    """The options of ab.py and paired.py: the two compilers, the models, the backend, more
    onnx2c options for both, the C compiler."""
    ap.add_argument("--base", required=True, help="the compiler before the change")
    ap.add_argument("--new", default=os.path.join(REPO, "build", "onnx2c"),
                    help="the compiler after it (default build/onnx2c)")
    ap.add_argument("--models", nargs="+", metavar="NAME|DIR", required=True)
    ap.add_argument("--gemm", choices=["libxsmm", "portable"], default="libxsmm")
    ap.add_argument("--extra", default="", help="more onnx2c options for both compilers")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))


def resolve_model(arg):
    """A model folder, or the name of one under benchmarks/models, tests/models or the frontend."""
    if os.path.isdir(arg):
        return os.path.abspath(arg.rstrip(os.sep))
    for root in (MODELS, os.path.join(REPO, "tests", "models"),
                 os.path.join(REPO, "tests", "frontend", "models")):
        if os.path.isdir(os.path.join(root, arg)):
            return os.path.join(root, arg)
    sys.exit(f"bench: no model folder or known model named '{arg}'")


def model_source(model_dir):
    info = model_info(model_dir)
    if "exporter" in info:
        return info["exporter"]
    return "frontend test" if os.sep + "frontend" + os.sep in model_dir else "test model"


# ---- onnx2c -------------------------------------------------------------------------------------

def build_backend(onnx2c, cc, model_dir, backend, work, name, tag=None, options=()):
    """Compiles (with more onnx2c options) and builds one backend, its files named NAME_TAG
    (TAG: the backend by default); returns (program path, C path, report dict)."""
    tag = tag or backend
    c_path = os.path.join(work, f"{name}_{tag}.c")
    prog = os.path.join(work, f"{name}_{tag}")
    report_path = os.path.join(work, f"{name}_{tag}.json")
    argv = [onnx2c, os.path.join(model_dir, "model.onnx"), "-o", c_path, "--harness",
            f"--gemm={backend}", "--report-json", report_path] + list(options)
    run(argv, f"onnx2c --gemm={backend} ({tag})")
    with open(report_path) as f:
        report = json.load(f)
    run([cc] + CFLAGS + [c_path, "-o", prog] + BACKEND_LIBS[backend], f"{cc} -O3 ({tag})")
    return prog, c_path, report


def build_cost(c_path, work, name):
    """gcc -O2 -c of the generated C: (wall s, peak bytes), through the measuring process."""
    log = os.path.join(work, f"{name}_gcc_O2.log")
    obj = os.path.join(work, f"{name}_gcc_O2.o")
    code, wall, _cpu, peak = compile_speed.run_measured(
        ["gcc"] + BUILD_COST_FLAGS + [c_path, "-o", obj], log, log + ".rusage")
    if os.path.exists(obj):
        os.remove(obj)
    if code != 0:
        raise Failure(f"gcc -O2 failed (exit {code}): {compile_speed.first_error_line(log)}")
    return wall, peak


def bench_harness(prog, data_dir, runs, backend):
    """One round: (median µs, init µs, mismatch line or None)."""
    try:
        r = subprocess.run([prog, "--bench", str(runs), data_dir], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise Failure(f"harness ({backend}): timed out after {TIMEOUT_S} s")
    m = BENCH_RE.search(r.stdout)
    if r.returncode not in (0, 1) or not m:
        raise Failure(f"harness ({backend}) exit {r.returncode}: {first_line(r.stderr + r.stdout)}")
    mismatch = None
    if r.returncode == 1:
        lines = [ln for ln in r.stdout.splitlines() if "MISMATCH" in ln]
        mismatch = f"{backend} MISMATCH: " + (lines[0].split(": ", 1)[-1] if lines else first_line(r.stdout))
    init = float(m.group(4)) if m.group(4) else None
    return float(m.group(2)), init, mismatch


# ---- onnxruntime --------------------------------------------------------------------------------

def load_feeds(model_path, data_dir):
    """input_<i>.pb in the order of the graph inputs that have no initializer."""
    model = onnx.load(model_path, load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    feeds = {}
    for i, name in enumerate(names):
        path = os.path.join(data_dir, f"input_{i}.pb")
        if not os.path.exists(path):
            raise Failure(f"no input_{i}.pb for input '{name}'")
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        feeds[name] = numpy_helper.to_array(t)
    return feeds


def ort_session(ort, model_path):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return ort.InferenceSession(model_path, so, providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 - any refusal goes into the table
        raise Failure(f"onnxruntime: {first_line(str(e))}")


def bench_ort(sess, feeds, runs):
    """One round: a warm-up, then `runs` timed calls; the median µs."""
    sess.run(None, feeds)
    clock = time.perf_counter_ns
    ns = []
    for _ in range(runs):
        t0 = clock()
        sess.run(None, feeds)
        ns.append(clock() - t0)
    return median(ns) / 1e3


def rotating_rounds(engines, rounds, time_one):
    """ROUNDS rounds of time_one(engine) (one round's median µs) over the engines, each round
    starting one engine later; each engine's figure is its minimum over the rounds."""
    medians = {e: [] for e in engines}
    for r in range(rounds):
        for e in engines[r % len(engines):] + engines[:r % len(engines)]:
            medians[e].append(time_one(e))
    return {e: min(v) for e, v in medians.items()}


def time_engine(engine, progs, sess, feeds, data_dir, runs):
    """One round of an engine: onnxruntime's session, or the harness progs[engine], whose
    mismatch against the reference is a Failure."""
    if engine == "onnxruntime":
        return bench_ort(sess, feeds, runs)
    med, _, mismatch = bench_harness(progs[engine], data_dir, runs, engine)
    if mismatch:
        raise Failure(mismatch)
    return med


# ---- one model ----------------------------------------------------------------------------------

def choose_runs(args, probe_us):
    if args.runs:
        return args.runs
    return int(min(2000, max(5, args.round_seconds * 1e6 / max(probe_us, 0.1))))


def bench_model(args, ort, onnx2c, model_dir, work):
    name = os.path.basename(model_dir)
    row = {"model": name, "source": model_source(model_dir), "errors": []}
    model_path = os.path.join(model_dir, "model.onnx")
    data_dir = os.path.join(model_dir, "test_data_set_0")
    if not os.path.isfile(model_path) or not os.path.isdir(data_dir):
        row["errors"].append(f"no model.onnx or test_data_set_0 in {name}")
        return row
    model = onnx.load(model_path, load_external_data=False)
    row["ops"] = {n.op_type for n in model.graph.node}
    row["input_shapes"] = [[d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input]
    del model
    progs = {}
    for backend in args.backends:
        try:
            prog, c_path, report = build_backend(onnx2c, args.cc, model_dir, backend, work, name)
            progs[backend] = prog
            if "report" not in row:
                row["report"] = report
                row["c_bytes"] = os.path.getsize(c_path)
                row["build"] = build_cost(c_path, work, name)
        except Failure as e:
            row["errors"].append(str(e))
    engines = list(progs)
    sess = feeds = None
    try:
        sess = ort_session(ort, model_path)
        feeds = load_feeds(model_path, data_dir)
        engines.append("onnxruntime")
    except Failure as e:
        row["errors"].append(str(e))
    if not engines:
        return row
    # One probe run decides N (onnxruntime's, or the first backend's when it cannot run).
    try:
        if sess is not None:
            probe = bench_ort(sess, feeds, 3)
        else:
            probe, _, _ = bench_harness(progs[engines[0]], data_dir, 3, engines[0])
    except Failure as e:
        row["errors"].append(str(e))
        return row
    runs = choose_runs(args, probe)
    row["runs"] = runs
    medians = {e: [] for e in engines}
    inits = {e: [] for e in engines}
    for r in range(args.rounds):
        order = engines[r % len(engines):] + engines[:r % len(engines)]
        for e in order:
            if e not in medians:
                continue  # failed in an earlier round
            try:
                if e == "onnxruntime":
                    medians[e].append(bench_ort(sess, feeds, runs))
                    continue
                med, init, mismatch = bench_harness(progs[e], data_dir, runs, e)
                medians[e].append(med)
                if init is not None:
                    inits[e].append(init)
                if mismatch and r == 0:
                    row["errors"].append(mismatch)
            except Failure as e_:
                row["errors"].append(str(e_))
                del medians[e]
    for e, ms in medians.items():
        if ms:
            row[e] = min(ms)
        if inits.get(e):
            row[e + "_init"] = min(inits[e])
    return row


# ---- table --------------------------------------------------------------------------------------

def fmt_us(v):
    if v is None:
        return "-"
    return f"{v:.2f}" if v < 10 else (f"{v:.1f}" if v < 1000 else f"{v:,.0f}")


def fmt_ratio(a, b):
    return "-" if a is None or b is None or b <= 0 else f"{a / b:.2f}"


def fmt_bytes(v):
    return "n/a" if v is None else f"{v:,}"


def fmt_mflop(v):
    if v is None:
        return "-"
    return f"{v:.3f}" if v < 10 else f"{v:,.1f}"


def row_cells(r, peak_gflops, backends):
    rep = r.get("report") or {}
    mflops = rep.get("mflops")
    lx = r.get(backends[0])
    gflops = mflops / lx * 1e3 if mflops is not None and lx else None
    build = r.get("build")
    status = "ok" if not r["errors"] else r["errors"][0]
    cells = [r["model"], r["source"], fmt_mflop(mflops)]
    for b in backends:
        cells.append(fmt_us(r.get(b)))
    cells.append(fmt_us(r.get("onnxruntime")))
    for b in backends:
        cells.append(fmt_ratio(r.get(b), r.get("onnxruntime")))
    cells += ["-" if gflops is None else f"{gflops:.1f}",
              "-" if gflops is None or not peak_gflops else f"{100 * gflops / peak_gflops:.1f}",
              fmt_bytes(rep.get("arena_bytes")) if rep else "-",
              fmt_bytes(rep.get("node_order_bound_bytes")) if rep else "-",
              fmt_bytes(rep.get("arena_lower_bound_bytes")) if rep else "-",
              fmt_us(r.get(backends[0] + "_init")),
              "-" if "c_bytes" not in r else f"{r['c_bytes'] / 1e6:.2f}",
              "-" if not build else f"{build[0]:.1f}",
              "-" if not build else f"{build[1] / 2**20:.0f}",
              status]
    return cells


def columns(backends):
    cols = ["model", "made by", "MFLOP"] + [f"{b} µs" for b in backends] + ["onnxruntime µs"]
    cols += [f"{b}/ORT" for b in backends]
    cols += [f"GFLOP/s {backends[0]}", "% peak", "arena B", "node-order bound B", "live lower bound B",
             "init µs", "C MB", "gcc -O2 s", "gcc -O2 MB", "status"]
    return cols


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def has_ops(r, *ops):
    return all(op in r.get("ops", ()) for op in ops)


# The model groups of issue 8's targets, told apart by what is in the model, not by its name.
GROUPS = [
    ("224x224 CNNs", lambda r: [1, 3, 224, 224] in r.get("input_shapes", [])),
    ("under 10 MFLOP", lambda r: (r.get("report") or {}).get("mflops", 1e9) < 10),
    ("int8 QDQ", lambda r: has_ops(r, "QuantizeLinear")),
    ("recurrent", lambda r: any(op in r.get("ops", ()) for op in ("GRU", "LSTM", "RNN"))),
    ("transformers", lambda r: has_ops(r, "Softmax", "LayerNormalization")),
]


def summary_lines(rows, backends):
    lines = []
    for b in backends:
        ratios = [r[b] / r["onnxruntime"] for r in rows if r.get(b) and r.get("onnxruntime")]
        if ratios:
            lines.append(f"{b}/onnxruntime over {len(ratios)} models: geomean {geomean(ratios):.2f}, "
                         f"best {min(ratios):.2f}, worst {max(ratios):.2f}, "
                         f"faster on {sum(x < 1 for x in ratios)}")
    if len(backends) == 2:
        ratios = [r[backends[1]] / r[backends[0]] for r in rows if r.get(backends[0]) and r.get(backends[1])]
        if ratios:
            lines.append(f"{backends[1]}/{backends[0]}: geomean {geomean(ratios):.2f}, worst {max(ratios):.2f}")
    b = backends[0]
    for title, member in GROUPS:
        pairs = [(r[b] / r["onnxruntime"], r["model"]) for r in rows
                 if r.get(b) and r.get("onnxruntime") and member(r)]
        if pairs:
            worst = max(pairs)
            lines.append(f"{title}: {b}/onnxruntime geomean {geomean([x for x, _ in pairs]):.2f} over "
                         f"{len(pairs)}, worst {worst[0]:.2f} ({worst[1]})")
    reps = [(r["model"], r["report"]) for r in rows if r.get("report")]
    over_node = [m for m, rep in reps if rep.get("node_order_bound_bytes") is not None
                 and rep["arena_bytes"] > rep["node_order_bound_bytes"]]
    over_live = [m for m, rep in reps if rep.get("arena_lower_bound_bytes")
                 and rep["arena_bytes"] > 1.10 * rep["arena_lower_bound_bytes"]]
    if any(rep.get("node_order_bound_bytes") is not None for _, rep in reps):
        lines.append(f"arena above the node-order bound: {len(over_node)}"
                     + (f" ({', '.join(over_node)})" if over_node else ""))
    lines.append(f"arena above 1.10x the live lower bound: {len(over_live)}"
                 + (f" ({', '.join(over_live)})" if over_live else ""))
    bad = [r["model"] for r in rows if r["errors"]]
    lines.append(f"models with an error or mismatch: {len(bad)}" + (f" ({', '.join(bad)})" if bad else ""))
    return lines


def render(rows, peak_gflops, backends, markdown):
    cols = columns(backends)
    cells = [row_cells(r, peak_gflops, backends) for r in rows]
    right = [c not in ("model", "made by", "status") for c in cols]
    out = []
    if markdown:
        out.append("| " + " | ".join(cols) + " |")
        out.append("|" + "|".join("---:" if a else "---" for a in right) + "|")
        for c in cells:
            out.append("| " + " | ".join(x.replace("|", "\\|") for x in c) + " |")
    else:
        widths = [max(len(x) for x in col) for col in zip(cols, *[c[:-1] + [""] for c in cells])]

        def line(c):
            body = "  ".join(x.rjust(w) if a else x.ljust(w) for x, w, a in zip(c[:-1], widths, right))
            return body + "  " + c[-1]

        out.append(line(cols))
        out.append("-" * (sum(widths[:-1]) + 2 * len(widths) + 6))
        out += [line(c) for c in cells]
    more = [f"{r['model']}: {e}" for r in rows for e in r["errors"][1:]]
    if more:
        out.append("")
        out += [("- " if markdown else "also: ") + m for m in more]
    return out


# ---- the machine --------------------------------------------------------------------------------

def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def tool_version(argv):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        return first_line(r.stdout + r.stderr)
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def build_peak(cc, work):
    """benchmarks/fma_peak.c built -O3 -march=native; the program's path, or None."""
    prog = os.path.join(work, "fma_peak")
    try:
        run([cc, "-O3", "-march=native", "-ffp-contract=fast", os.path.join(HERE, "fma_peak.c"),
             "-o", prog], "fma_peak build")
    except Failure as e:
        print(f"bench: {e}", file=sys.stderr)
        return None
    return prog


def measure_peak(prog):
    """Single-core FP32 FMA throughput in GFLOP/s and the vector width, or (None, "")."""
    if prog is None:
        return None, ""
    try:
        r = run([prog], "fma_peak")
    except Failure as e:
        print(f"bench: {e}", file=sys.stderr)
        return None, ""
    m = re.search(r"^peak_gflops=([0-9.]+) width=(\d+)", r.stdout, re.M)
    return (float(m.group(1)), f"{m.group(2)}-byte vectors") if m else (None, "")


# ---- main ---------------------------------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", metavar="NAME|DIR",
                    help="model folders or names (default: benchmarks/models/*, tests/models/*, "
                         "and the frontend models " + ", ".join(FRONTEND_MODELS) + ")")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default: %(default)s)")
    ap.add_argument("--runs", type=int, default=0,
                    help="timed runs per engine and round (default: chosen per model)")
    ap.add_argument("--round-seconds", type=float, default=0.25,
                    help="target time of one engine's round when --runs is not given (default: %(default)s)")
    ap.add_argument("--markdown", metavar="FILE", help="also write the table as Markdown to FILE")
    ap.add_argument("--keep", metavar="DIR", help="keep the generated C, reports and programs in DIR")
    ap.add_argument("--only-backend", choices=["libxsmm", "portable"],
                    help="build and time only this onnx2c backend")
    ap.add_argument("--onnx2c", default=os.path.join(REPO, "build", "onnx2c"),
                    help="compiler binary (default: %(default)s)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"), help="C compiler (default: $CC or cc)")
    return ap.parse_args()


def main():
    args = parse_args()
    if args.rounds < 1 or args.runs < 0 or args.round_seconds <= 0:
        sys.exit("bench: --rounds must be at least 1, --runs and --round-seconds positive")
    onnx2c = os.path.abspath(args.onnx2c)
    if not os.access(onnx2c, os.X_OK):
        sys.exit(f"bench: no executable onnx2c at {args.onnx2c} (build it, or pass --onnx2c)")
    if shutil.which(args.cc) is None:
        sys.exit(f"bench: no C compiler '{args.cc}'")
    import onnxruntime as ort  # after the argument checks: --help works without it

    args.backends = [args.only_backend] if args.only_backend else ["libxsmm", "portable"]
    models = [resolve_model(m) for m in args.models] if args.models else default_models()
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        work, tmp = os.path.abspath(args.keep), None
    else:
        tmp = tempfile.TemporaryDirectory(prefix="onnx2c-bench-")
        work = tmp.name
    compile_speed.USE_GNU_TIME = compile_speed.have_gnu_time()

    # The peak is measured before each model and at the end, and the highest kept: other work
    # on the machine, and the lower clock the host gives the VM at busy times, only lower it.
    peak_prog = build_peak(args.cc, work)
    peak, peak_how = measure_peak(peak_prog)
    peaks = [peak] if peak else []
    commit = tool_version(["git", "-C", REPO, "log", "-1", "--format=%h %cs"])
    machine = (f"onnx2c {commit} (checkout); {cpu_name()}, {os.cpu_count()} cores, load average "
               f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} at start; "
               f"{tool_version([args.cc, '--version'])}; libxsmm "
               f"{tool_version(['pkg-config', '--modversion', 'libxsmm'])}; onnxruntime {ort.__version__}")
    print(f"machine: {machine}", flush=True)

    rows = []
    t_start = time.time()
    for model_dir in models:
        print(f"bench: {os.path.basename(model_dir)} ...", file=sys.stderr, flush=True)
        rows.append(bench_model(args, ort, onnx2c, model_dir, work))
        p, _ = measure_peak(peak_prog)
        if p:
            peaks.append(p)
    minutes = (time.time() - t_start) / 60
    peak = max(peaks) if peaks else None
    peak_line = ("single-core FP32 peak: " + (f"{peak:.1f} GFLOP/s ({peak_how}, benchmarks/fma_peak.c; "
                                              f"highest of {len(peaks)} measurements, one after each "
                                              f"model, lowest {min(peaks):.1f})"
                                              if peak else "not measured"))

    how = (f"{args.rounds} interleaved rounds, "
           + (f"{args.runs} runs each" if args.runs else f"runs per round chosen for ~{args.round_seconds} s")
           + "; figure = min over rounds of the round's median; one thread each; "
           + f"{args.cc} {' '.join(CFLAGS)}; onnxruntime ORT_ENABLE_ALL, sequential; ratios below 1: onnx2c faster")
    print(f"{how}; {minutes:.1f} min\n{peak_line}\n")
    print("\n".join(render(rows, peak, args.backends, markdown=False)))
    print()
    print("\n".join(summary_lines(rows, args.backends)))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(f"machine: {machine}\n\n{peak_line}\n\n{how}\n\n")
            f.write("\n".join(render(rows, peak, args.backends, markdown=True)) + "\n\n")
            f.write("\n".join("- " + s for s in summary_lines(rows, args.backends)) + "\n")
    if args.keep:
        print(f"\ngenerated C, reports and programs kept in {work}")
    return 1 if any(r["errors"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
