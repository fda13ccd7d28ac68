#!/usr/bin/env python3
"""Two onnx2c compilers in one program, inference by inference: a change's speed on a noisy host.

    .venv/bin/python benchmarks/paired.py --base OLD/onnx2c [--new build/onnx2c] \
        --models NAME|DIR ... [--seconds 10] [--gemm libxsmm|portable] [--extra "..."]

ab.py times each engine for a whole round (a quarter of a second or more) and takes the minimum
of the round medians. On a host whose speed drifts by 20% within minutes (a shared VM: identical
code read 0.85x to 1.4x between rounds), that cannot resolve a change of a few percent. Here
both compilers' C for a model is linked into one program (`--name` keeps their symbols apart)
that runs one inference of each in turn, alternating which goes first, for about SECONDS: each
pair's two runs are a few milliseconds apart, so the host's drift cancels in their ratio. Where
the code lies moves identical code by 2-3% (vww_int8 against itself: 1.029 with one object
linked first, 0.985 with the other), so the program is linked both ways, each for half the
time. It prints, per model: the pairs, each engine's median µs (each inference follows one of
the other model, so its caches are colder than in the harness's --bench), new/base (the
geometric mean of the two link orders' medians of the per-pair ratios, each also shown), and
whether both wrote the same output bytes for the test inputs (test_data_set_0, or zeros where a
model has none). onnxruntime is not in the loop: for that, ab.py or bench.py. Asserts nothing
about speed; exits 1 when a model fails to build or run.
"""
import argparse
import os
import sys
import tempfile

import bench
import onnx
from onnx import numpy_helper

DRIVER = r"""
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "pb_base.h"
#include "pb_new.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[(int)(q * (n - 1) + 0.5)];
}

/* One inference of an engine (0 base, 1 new), its time in seconds. */
static double run_one(int e, const void *const *in, void *const *out)
{
    const double t0 = now_s();
    const int rc = e ? pb_new_run_generic(in, out) : pb_base_run_generic(in, out);
    const double t = now_s() - t0;
    if (rc) {
        fprintf(stderr, "paired: %s run failed (%d)\n", e ? "new" : "base", rc);
        exit(1);
    }
    return t;
}

int main(int argc, char **argv)
{
    const double seconds = argc > 2 ? atof(argv[2]) : 10.0;
    static const size_t in_bytes[] = {IN_BYTES};
    static const size_t out_bytes[] = {OUT_BYTES};
    enum { NI = sizeof in_bytes / sizeof in_bytes[0], NO = sizeof out_bytes / sizeof out_bytes[0] };
    const void *in[NI];
    void *out[2][NO];
    for (int i = 0; i < NI; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/input_%d.bin", argv[1], i);
        FILE *f = fopen(path, "rb");
        void *p = calloc(in_bytes[i] + 1, 1);
        const size_t got = f && p ? fread(p, 1, in_bytes[i], f) : 1;
        if (!f || !p || (got != in_bytes[i] && got != 0)) { /* empty: zeros */
            fprintf(stderr, "paired: cannot read %s\n", path);
            return 1;
        }
        fclose(f);
        in[i] = p;
    }
    for (int e = 0; e < 2; e++)
        for (int o = 0; o < NO; o++)
            out[e][o] = calloc(out_bytes[o] + 1, 1);
    if (pb_base_init() || pb_new_init()) {
        fprintf(stderr, "paired: init failed\n");
        return 1;
    }
    double warm = 0;
    for (int r = 0; r < 3; r++) /* warm-up, and the bits of each */
        warm += run_one(0, in, out[0]) + run_one(1, in, out[1]);
    int same = 1;
    for (int o = 0; o < NO; o++)
        same &= memcmp(out[0][o], out[1][o], out_bytes[o]) == 0;
    int pairs = (int)(seconds / (warm / 3));
    pairs = pairs < 20 ? 20 : pairs > 200000 ? 200000 : pairs;
    double *tb = malloc(sizeof(double) * (size_t)pairs), *tn = malloc(sizeof(double) * (size_t)pairs);
    double *ratio = malloc(sizeof(double) * (size_t)pairs);
    for (int p = 0; p < pairs; p++) {
        if (p % 2) {
            tn[p] = run_one(1, in, out[1]);
            tb[p] = run_one(0, in, out[0]);
        } else {
            tb[p] = run_one(0, in, out[0]);
            tn[p] = run_one(1, in, out[1]);
        }
        ratio[p] = tn[p] / tb[p];
    }
    const double q1 = quantile(ratio, pairs, 0.25), med = quantile(ratio, pairs, 0.5);
    const double q3 = quantile(ratio, pairs, 0.75);
    printf("pairs=%d base_us=%.3f new_us=%.3f ratio=%.4f q1=%.4f q3=%.4f same=%d\n", pairs,
           1e6 * quantile(tb, pairs, 0.5), 1e6 * quantile(tn, pairs, 0.5), med, q1, q3, same);
    return 0;
}
"""


def write_inputs(model_dir, dest):
    """input_<i>.bin: the raw bytes of test_data_set_0's inputs (zeros where there are none)."""
    model = onnx.load(os.path.join(model_dir, "model.onnx"), load_external_data=False)
    inits = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in inits]
    data = os.path.join(model_dir, "test_data_set_0")
    for i in range(len(names)):
        src = os.path.join(data, f"input_{i}.pb")
        raw = b""
        if os.path.exists(src):
            t = onnx.TensorProto()
            with open(src, "rb") as f:
                t.ParseFromString(f.read())
            raw = numpy_helper.to_array(t).tobytes()
        with open(os.path.join(dest, f"input_{i}.bin"), "wb") as f:
            f.write(raw)


def sizes(header, name, kind, n):
    """The byte sizes NAME_<KIND>_<i>_BYTES of the header's model."""
    text = open(header).read()
    out = []
    for i in range(n):
        key = f"#define {name}_{kind}_{i}_BYTES "
        at = text.index(key) + len(key)
        out.append(text[at:text.index("\n", at)].strip())
    return out


def count(header, name, kind):
    text = open(header).read()
    key = f"#define {name}_NUM_{kind} "
    at = text.index(key) + len(key)
    return int(text[at:text.index("\n", at)].strip())


def pair_model(args, model_dir, work):
    objs = []
    for tag, onnx2c in (("base", args.base), ("new", args.new)):
        c_path = os.path.join(work, f"pb_{tag}.c")
        bench.run([os.path.abspath(onnx2c), os.path.join(model_dir, "model.onnx"), "-o", c_path,
                   "--name", f"pb_{tag}", "--header", os.path.join(work, f"pb_{tag}.h"),
                   f"--gemm={args.gemm}"] + args.extra.split(), f"onnx2c ({tag})")
        obj = os.path.join(work, f"pb_{tag}.o")
        bench.run([args.cc] + bench.CFLAGS + ["-c", c_path, "-o", obj], f"{args.cc} ({tag})")
        objs.append(obj)
    header = os.path.join(work, "pb_base.h")
    ni, no = count(header, "pb_base", "INPUTS"), count(header, "pb_base", "OUTPUTS")
    driver = DRIVER.replace("IN_BYTES", ", ".join(sizes(header, "pb_base", "INPUT", ni)))
    driver = driver.replace("OUT_BYTES", ", ".join(sizes(header, "pb_base", "OUTPUT", no)))
    d_path = os.path.join(work, "paired_main.c")
    with open(d_path, "w") as f:
        f.write(driver)
    write_inputs(model_dir, work)
    results = []
    for order in (objs, objs[::-1]):  # each link order for half the time (below)
        prog = os.path.join(work, "paired")
        bench.run([args.cc] + bench.CFLAGS + ["-I", work, d_path] + order + ["-o", prog] +
                  bench.BACKEND_LIBS[args.gemm], f"{args.cc} (driver)")
        r = bench.run([prog, work, str(args.seconds / 2)], "paired run")
        results.append(dict(kv.split("=") for kv in r.stdout.split()))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    bench.add_compare_args(ap)
    ap.add_argument("--seconds", type=float, default=10.0, help="time per model, about")
    args = ap.parse_args()
    head = ["model", "pairs", "base µs", "new µs", "new/base", "per link order", "same bits"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head), flush=True)
    failed = False
    for d in (bench.resolve_model(m) for m in args.models):
        with tempfile.TemporaryDirectory(prefix="onnx2c-paired-") as work:
            try:
                rs = pair_model(args, d, work)
            except bench.Failure as e:
                print(f"| {os.path.basename(d)} | failed: {e} |", flush=True)
                failed = True
                continue
        ratios = [float(r["ratio"]) for r in rs]
        us = {k: bench.median([float(r[k]) for r in rs]) for k in ("base_us", "new_us")}
        print(f"| {os.path.basename(d)} | {sum(int(r['pairs']) for r in rs)} | "
              f"{bench.fmt_us(us['base_us'])} | {bench.fmt_us(us['new_us'])} | "
              f"{bench.geomean(ratios):.3f} | {' / '.join(f'{x:.3f}' for x in ratios)} | "
              f"{'yes' if all(r['same'] == '1' for r in rs) else 'NO'} |", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
