#!/usr/bin/env python3
"""Where a generated model spends its time: per-node thread CPU time of onnx2c's C.

Copies the C that `onnx2c --harness` wrote, puts a timer before each node of its run function
(each node starts with the comment `/* Op 'name' ...`), builds it with bench.py's flags and runs the
harness's --bench; at exit the program prints every node's share of the time, by op and by node.
A profiler cannot do this for the libxsmm backend: its JIT code has no symbols, and perf cannot
tell which product a sample belongs to. The timers cost about 50 ns a node, so read the figures
of nodes that take a microsecond or more.

    onnx2c model.onnx -o m.c --harness
    .venv/bin/python benchmarks/node_profile.py m.c DIR/test_data_set_0 [--runs 200] [--top 30]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402 - the flags and libraries bench.py builds with

NODE = re.compile(r"^    /\* ([A-Za-z0-9_]+) '([^']*)'")

PROLOGUE = r"""#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double o2c_prof_s[%(n)d];
static const char *const o2c_prof_node[%(n)d] = {%(names)s};
static double o2c_prof_last;
static int o2c_prof_cur = -1, o2c_prof_runs;
static double o2c_prof_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static void o2c_prof_mark(int k)
{
    const double now = o2c_prof_now();
    if (o2c_prof_cur >= 0)
        o2c_prof_s[o2c_prof_cur] += now - o2c_prof_last;
    o2c_prof_cur = k;
    o2c_prof_last = o2c_prof_now();
}
static void o2c_prof_print(void)
{
    double total = 0;
    for (int k = 0; k < %(n)d; k++)
        total += o2c_prof_s[k];
    printf("profile: %%d runs, %%.1f us a run in %(n)d nodes\n", o2c_prof_runs,
           1e6 * total / o2c_prof_runs);
    for (int k = 0; k < %(n)d; k++)
        printf("node\t%%s\t%%.2f\t%%.2f\n", o2c_prof_node[k], 1e6 * o2c_prof_s[k] / o2c_prof_runs,
               100.0 * o2c_prof_s[k] / total);
}
"""


def instrument(src):
    """The C with a mark before each node of the run function and at its returns."""
    lines = src.split("\n")
    start = max(i for i, l in enumerate(lines) if re.match(r"^int \w+_run_with_arena\(void", l))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("}"))
    names, out = [], lines[:start]
    for i in range(start, end + 1):
        line = lines[i]
        m = NODE.match(line)
        if m:
            out.append("    o2c_prof_mark(%d);" % len(names))
            names.append("%s %s" % (m.group(1), m.group(2)))
        elif line.strip() == "return 0;" and names:
            out.append("    o2c_prof_mark(-1); o2c_prof_runs++;")
        elif "_ready && " in line and "init_with_arena" in line:
            out.append("    { static int once; if (!once) { once = 1; atexit(o2c_prof_print); } }")
        out.append(line)
    out += lines[end + 1:]
    quoted = ", ".join('"%s"' % n.replace('"', "'") for n in names)
    return PROLOGUE % {"n": max(len(names), 1), "names": quoted or '""'} + "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("c_file")
    ap.add_argument("data_dir")
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    args = ap.parse_args()
    with open(args.c_file) as f:
        src = instrument(f.read())
    with tempfile.TemporaryDirectory() as tmp:
        c, exe = os.path.join(tmp, "p.c"), os.path.join(tmp, "p")
        with open(c, "w") as f:
            f.write(src)
        cmd = [args.cc] + bench.CFLAGS + [c, "-o", exe] + bench.BACKEND_LIBS["libxsmm"]
        subprocess.run(cmd, check=True)
        run = subprocess.run([exe, "--bench", str(args.runs), args.data_dir], check=True,
                             capture_output=True, text=True)
    rows, ops = [], {}
    for line in run.stdout.splitlines():
        if line.startswith("profile:"):
            print(line)
        elif line.startswith("node\t"):
            _, name, us, share = line.split("\t")
            rows.append((float(us), float(share), name))
            op = name.split(" ")[0]
            ops[op] = [x + y for x, y in zip(ops.get(op, [0, 0, 0]), [float(us), float(share), 1])]
    print("\nby op:  us a run   share  nodes")
    for op, (us, share, count) in sorted(ops.items(), key=lambda kv: -kv[1][0]):
        print("%-28s %10.1f %6.1f%% %5d" % (op, us, share, count))
    print("\nby node (top %d):" % args.top)
    for us, share, name in sorted(rows, reverse=True)[:args.top]:
        print("%10.1f %6.1f%%  %s" % (us, share, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
