#!/usr/bin/env python3
"""Runs ONNX backend node tests through onnx2c + cc + the generated harness.

    run_backend.py --onnx2c build/onnx2c --data DATA_DIR [--list FILE | --all] [options]

DATA_DIR is what gen_node_tests.py wrote. For each test and each --gemm backend:

    onnx2c DATA/<name>/model.onnx -o WORK/<backend>/<name>/model.c --harness --gemm=<backend>
    CC CFLAGS model.c -o prog LIBS
    ./prog --require-outputs --rtol R --atol A DATA/<name>/test_data_set_*

and the result is one of
    passed         harness exit 0
                   (passed_bound: after binding the shape inputs onnx2c asked for, see below;
                   passed_all_bound: every input was bound, so the outputs were computed at
                   compile time and no emitted kernel ran: a weaker pass, in its own row)
    refused        onnx2c exit 1 with exactly one stderr line '^onnx2c: error: ' (a clear refusal)
    wrong          harness exit 1 (outputs differ from the reference)
    crashed        anything else:  bad_error  onnx2c exit 1/2 without the one-line error format
                                   onnx2c_crash onnx2c killed by a signal or another exit status
                                   cc_error   the generated C does not build (warnings are errors)
                                   harness_error harness exit 2 (could not read the test data)
                                   harness_crash harness killed by a signal or another exit status
                                   timeout    a step ran out of time
                                   no_data    the test is not in DATA_DIR
A static compiler needs inputs that decide a shape (Reshape's shape, TopK's K, Resize's
scales) as constants. onnx2c refuses them naming the graph inputs involved; the runner then
recompiles with --bind-input NAME=test_data_set_<k>/input_<i>.pb for each (the values the test
uses), runs the harness on the remaining inputs, and reports a pass as passed_bound
("passed, shape inputs bound"), or as passed_all_bound ("passed, every input bound (folded)")
when no input is left: then constant folding computed the outputs and the generated code only
copies constants, so such a test checks the folding, not the kernel. Symbolic dimensions
that onnx2c refuses unbound are bound the same way, to the sizes of the data set's inputs
(--dim SYMBOL=N; e.g. test_sequence_model8, whose X is [n]). --no-bind-inputs turns this off.

Tolerances are the test's own (the manifest's rtol/atol: the backend suite's 1e-3/1e-7 unless
the case documents a looser bound), unless the list line of a test overrides them
('test_name rtol=1e-2 atol=1e-5') or --rtol/--atol are given.

Writes WORK/results.json and WORK/results.txt, prints a summary table (per result and, with
--all or --by-op, per op type as Markdown), and exits 1 if any test of the expected list
(--expected, default tests/backend/expected_pass.txt) that was run did not pass with every
backend. --update-expected appends the tests that passed with every backend to the expected
list (never removes one).
"""
import argparse
import collections
import concurrent.futures as cf
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = {"portable": ["-lm"], "libxsmm": ["-lxsmm", "-lxsmmnoblas", "-lpthread", "-lm", "-ldl"]}
ERROR_RE = re.compile(r"^onnx2c: error: ")
# Order of the categories in tables; the first four are the headline ones.
CATEGORIES = ["passed", "refused", "wrong", "crashed"]
PASS_KINDS = ["passed", "passed_bound", "passed_all_bound"]
CRASH_KINDS = ["no_data", "bad_error", "onnx2c_crash", "cc_error", "harness_error", "harness_crash", "timeout"]


def parse_list(path):
    """Test names with their overrides, in file order: [(name, {"rtol": .., "atol": ..})]."""
    out = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            opts = {}
            for w in words[1:]:
                key, eq, val = w.partition("=")
                if not eq or key not in ("rtol", "atol"):
                    sys.exit(f"{path}:{lineno}: unknown option {w!r} (want rtol=X or atol=X)")
                opts[key] = float(val)
            out.append((words[0], opts))
    return out


def status_text(rc):
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return f"exit {rc}"


def tail(text, n=12):
    lines = text.strip().splitlines()
    return "\n".join(lines[-n:])


BIND_RE = re.compile(r"must be a compile-time constant; it depends on graph input (.*) \(--bind-input")
DIM_RE = re.compile(r"unbound symbolic dimensions: (.*); bind them with --dim")


def input_files(case):
    """Graph input name -> index of its input_<i>.pb (inputs with an initializer have none)."""
    import onnx

    g = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False).graph
    weights = {t.name for t in g.initializer}
    names = [v.name for v in g.input if v.name not in weights]
    return {n: i for i, n in enumerate(names)}


def symbol_dims(case, data_set, symbols):
    """SYMBOL -> N for each of `symbols`: the size of the data set's input at a dimension the
    model names SYMBOL (the first such input)."""
    if not symbols:
        return {}
    import onnx

    g = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False).graph
    files = input_files(case)
    dims = {}
    for v in g.input:
        if v.name not in files:
            continue
        shape = [d.dim_param for d in v.type.tensor_type.shape.dim]
        if not set(shape) & symbols:
            continue
        t = onnx.load_tensor(os.path.join(case, data_set, f"input_{files[v.name]}.pb"))
        for sym, n in zip(shape, t.dims):
            if sym in symbols:
                dims.setdefault(sym, n)
    return dims


def run_one(job):
    """Runs one (test, backend); returns a result dict. Never raises for a test failure.

    A test whose shape-determining inputs (Reshape's shape, TopK's K, ...) arrive at run time is
    refused by onnx2c with the graph inputs it needs; with --bind-inputs the test is retried with
    those inputs fixed to the data set's values (--bind-input), the harness gets the remaining
    inputs renumbered, and a pass counts as passed_bound. Symbolic dimensions onnx2c asks for
    are bound the same way, to the data set's input shapes (--dim)."""
    name, backend, tol, a = job["name"], job["backend"], job["tol"], job["args"]
    case = os.path.join(a.data, name)
    work = os.path.join(a.work, backend, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    res = {"name": name, "backend": backend, "category": None, "kind": None, "detail": ""}
    t0 = time.monotonic()

    def finish(category, kind, detail=""):
        res.update(category=category, kind=kind, detail=detail.strip(),
                   seconds=round(time.monotonic() - t0, 3))
        return res

    def run(cmd, timeout, log):
        try:
            p = subprocess.run(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, "", ""
        except OSError as e:  # e.g. the binary is being rebuilt: a failed run, not a dead runner
            return 127, "", f"cannot run {cmd[0]}: {e}\n"
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        with open(os.path.join(work, log), "w") as f:
            f.write("$ " + " ".join(cmd) + "\n" + out + err + f"[{status_text(p.returncode)}]\n")
        return p.returncode, out, err

    model = os.path.join(case, "model.onnx")
    if not os.path.exists(model):
        return finish("crashed", "no_data", f"no {model} (is the test data generated?)")
    sets = sorted(d for d in os.listdir(case) if d.startswith("test_data_set_"))

    def compile_model(csrc, bound, data_set):
        """onnx2c with the inputs of `bound` fixed to data_set's values; None or a finished result."""
        cmd = [a.onnx2c, model, "-o", csrc, "--harness", f"--gemm={backend}"]
        cmd += [f"--bind-input={n}={os.path.join(case, data_set, f'input_{i}.pb')}"
                for n, i in sorted(bound.items(), key=lambda kv: kv[1])]
        cmd += [f"--dim={k}={n}" for k, n in sorted(symbol_dims(case, data_set, symbols).items())]
        rc, out, err = run(cmd, a.timeout, "onnx2c.log")
        if rc is None:
            return finish("crashed", "timeout", f"onnx2c ran longer than {a.timeout}s")
        if rc == 0:
            return None
        lines = [l for l in err.splitlines() if l.strip()]
        if rc == 1 and len(lines) == 1 and ERROR_RE.match(lines[0]):
            return finish("refused", "refused", lines[0])
        if rc in (1, 2):
            return finish("crashed", "bad_error",
                          f"onnx2c {status_text(rc)} with {len(lines)} stderr lines:\n{tail(err)}")
        return finish("crashed", "onnx2c_crash", f"onnx2c {status_text(rc)}\n{tail(err)}")

    def build_and_run(csrc, tag, dirs):
        """cc, then the harness on dirs; None when it passed, else a finished result."""
        prog = os.path.join(work, "prog" + tag)
        rc, out, err = run([a.cc] + a.cflags.split() + [csrc, "-o", prog] + LIBS[backend],
                           a.timeout, f"cc{tag}.log")
        if rc is None:
            return finish("crashed", "timeout", f"cc ran longer than {a.timeout}s")
        if rc != 0:
            return finish("crashed", "cc_error", f"cc {status_text(rc)}\n{tail(out + err)}")
        cmd = [prog, "--require-outputs", "--rtol", repr(tol["rtol"]), "--atol", repr(tol["atol"])] + dirs
        rc, out, err = run(cmd, a.timeout, f"run{tag}.log")
        if not a.keep:
            try:
                os.remove(prog)
            except OSError:
                pass
        if rc is None:
            return finish("crashed", "timeout", f"harness ran longer than {a.timeout}s")
        if rc == 0:
            return None
        if rc == 1:
            return finish("wrong", "wrong", tail(out + err))
        if rc == 2:
            return finish("crashed", "harness_error", tail(out + err))
        return finish("crashed", "harness_crash", f"harness {status_text(rc)}\n{tail(out + err)}")

    # 1. onnx2c; with --bind-inputs, retried while it names graph inputs it needs as constants
    csrc = os.path.join(work, "model.c")
    bound, symbols = {}, set()
    while True:
        r = compile_model(csrc, bound, sets[0] if sets else "")
        refused = r["detail"] if r and r["kind"] == "refused" and a.bind_inputs else ""
        dims = DIM_RE.search(refused)
        if dims and sets and not set(re.findall(r"'([^']*)'", dims.group(1))) <= symbols:
            symbols |= set(re.findall(r"'([^']*)'", dims.group(1)))
            continue
        need = BIND_RE.search(refused)
        if not need:
            break
        files = input_files(case)
        names = set(re.findall(r"'([^']*)'", need.group(1))) - set(bound)
        if not sets or not names or not names <= set(files):
            break
        bound.update((n, files[n]) for n in names)
    if r:
        return r
    if not bound and not symbols:  # 2. cc + harness on every data set
        r = build_and_run(csrc, "", [os.path.join(case, d) for d in sets])
        return r or finish("passed", "passed")

    # 2'. bound inputs: one program per distinct value of the bound inputs, each run on its
    # data sets with the other inputs renumbered (input_<i>.pb follows the model's inputs).
    groups = collections.defaultdict(list)
    for d in sets:
        key = tuple(open(os.path.join(case, d, f"input_{i}.pb"), "rb").read()
                    for i in sorted(bound.values())) + tuple(
                        sorted(symbol_dims(case, d, symbols).items()))
        groups[key].append(d)
    for g, group in enumerate(groups.values()):
        tag = f"_{g}"
        if g and compile_model(csrc + tag + ".c", bound, group[0]):
            return res
        dirs = []
        for d in group:
            dst = os.path.join(work, "data" + tag, d)
            os.makedirs(dst)
            files = sorted(f for f in os.listdir(os.path.join(case, d)) if f.endswith(".pb"))
            free = [f for f in files if f.startswith("input_")
                    and int(f[6:-3]) not in bound.values()]
            free.sort(key=lambda f: int(f[6:-3]))
            for i, f in enumerate(free):
                os.symlink(os.path.join(case, d, f), os.path.join(dst, f"input_{i}.pb"))
            for f in files:
                if f.startswith("output_"):
                    os.symlink(os.path.join(case, d, f), os.path.join(dst, f))
            dirs.append(dst)
        r = build_and_run(csrc + tag + ".c" if g else csrc, tag, dirs)
        if r:
            return r
    kind = "passed_all_bound" if set(bound) >= set(input_files(case)) else "passed_bound"
    return finish("passed", kind, "bound: " + ", ".join(sorted(bound) + sorted(symbols)))


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--onnx2c", required=True, help="the onnx2c binary")
    ap.add_argument("--data", required=True, help="directory written by gen_node_tests.py")
    sel = ap.add_mutually_exclusive_group(required=True)
    sel.add_argument("--list", action="append", metavar="FILE",
                     help="run the tests named in FILE (may be repeated)")
    sel.add_argument("--all", action="store_true", help="run every generated node test")
    ap.add_argument("--expected", default=os.path.join(HERE, "expected_pass.txt"),
                    help="tests that must pass (default: %(default)s)")
    ap.add_argument("--update-expected", action="store_true",
                    help="append the tests that passed to the expected list")
    ap.add_argument("--gemm", default="portable,libxsmm",
                    help="comma-separated backends (default: %(default)s)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--cflags", default="-std=c99 -O0 -Wall -Wextra -pedantic -Werror")
    ap.add_argument("--rtol", type=float, default=None,
                    help="relative tolerance (default: the test's own, else 1e-3)")
    ap.add_argument("--atol", type=float, default=None,
                    help="absolute tolerance (default: the test's own, else 1e-7)")
    ap.add_argument("--no-bind-inputs", dest="bind_inputs", action="store_false",
                    help="do not retry refused tests with their shape inputs bound")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--shard", metavar="K/N", default="1/1",
                    help="run only every N-th test, starting with the K-th (CTest splits the list)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per step")
    ap.add_argument("--work", default=None, help="work directory (default: DATA/../backend_work)")
    ap.add_argument("--keep", action="store_true", help="keep the test programs")
    ap.add_argument("--by-op", action="store_true", help="print the per-op table")
    ap.add_argument("--reasons", action="store_true", help="print the refusal messages, counted")
    ap.add_argument("--markdown", metavar="FILE", help="also write the tables to FILE")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every result")
    a = ap.parse_args()

    a.onnx2c = os.path.abspath(a.onnx2c)
    a.data = os.path.abspath(a.data)
    a.work = os.path.abspath(a.work or os.path.join(os.path.dirname(a.data), "backend_work"))
    backends = [b for b in a.gemm.split(",") if b]
    for b in backends:
        if b not in LIBS:
            ap.error(f"unknown backend {b!r}")
    if not os.access(a.onnx2c, os.X_OK):
        sys.exit(f"run_backend: no onnx2c at {a.onnx2c}")

    manifest_path = os.path.join(a.data, "manifest.json")
    manifest = {}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    elif a.all:
        sys.exit(f"run_backend: no {manifest_path}: run gen_node_tests.py first")

    expected = parse_list(a.expected) if os.path.exists(a.expected) else []
    expected_names = {n for n, _ in expected}
    overrides = {n: o for n, o in expected}
    if a.all:
        tests = sorted(manifest)
    else:
        tests, seen = [], set()
        for path in a.list:
            for n, o in parse_list(path):
                overrides.setdefault(n, {}).update(o)
                if n not in seen:
                    seen.add(n)
                    tests.append(n)

    k, _, n = a.shard.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        ap.error(f"--shard wants K/N with 1 <= K <= N, not {a.shard!r}")
    tests = tests[int(k) - 1::int(n)]
    if not tests:
        print("run_backend: no tests to run")
        return 0
    jobs = []
    for name in tests:
        info = manifest.get(name, {})
        tol = {"rtol": info.get("rtol", 1e-3), "atol": info.get("atol", 1e-7)}
        tol.update(overrides.get(name, {}))
        tol.update({k: v for k, v in (("rtol", a.rtol), ("atol", a.atol)) if v is not None})
        for b in backends:
            jobs.append({"name": name, "backend": b, "tol": tol, "args": a})

    os.makedirs(a.work, exist_ok=True)
    print(f"run_backend: {len(tests)} tests x {len(backends)} backends ({','.join(backends)}), "
          f"{a.jobs} jobs, work dir {a.work}", flush=True)
    t0 = time.monotonic()
    results = []
    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        futures = [pool.submit(run_one, j) for j in jobs]
        for i, fut in enumerate(cf.as_completed(futures), 1):
            r = fut.result()
            results.append(r)
            must = r["name"] in expected_names
            if a.verbose or (must and r["category"] != "passed"):
                flag = "EXPECTED TO PASS: " if must and r["category"] != "passed" else ""
                print(f"{flag}{r['name']} [{r['backend']}]: {r['kind']}", flush=True)
                if r["detail"] and (must or a.verbose):
                    print("    " + r["detail"].replace("\n", "\n    "), flush=True)
            elif i % 200 == 0:
                print(f"  ... {i}/{len(jobs)} done", flush=True)
    elapsed = time.monotonic() - t0
    results.sort(key=lambda r: (r["name"], backends.index(r["backend"])))

    with open(os.path.join(a.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(a.work, "results.txt"), "w") as f:
        for r in results:
            first = r["detail"].splitlines()[0] if r["detail"] else ""
            f.write(f"{r['name']}\t{r['backend']}\t{r['kind']}\t{first}\n")

    # ---- tables ----
    count = collections.Counter((r["backend"], r["kind"]) for r in results)
    rows = []
    for kind in PASS_KINDS + ["refused", "wrong"] + CRASH_KINDS:
        if kind in CRASH_KINDS + PASS_KINDS[1:] and not any(count[(b, kind)] for b in backends):
            continue
        label = {"passed_bound": "passed, shape inputs bound",
                 "passed_all_bound": "passed, every input bound (folded)"}.get(kind, kind)
        label = f"crashed: {kind}" if kind in CRASH_KINDS else label
        rows.append([label] + [count[(b, kind)] for b in backends])
    rows.append(["total"] + [sum(count[(b, k)] for k in PASS_KINDS + ["refused", "wrong"] + CRASH_KINDS)
                             for b in backends])
    tables = [markdown_table(["result"] + backends, rows)]

    # the conformance goal: tests whose tensors are numeric (not strings, sequences, optionals
    # or training-only ops), passed with every backend
    scope = collections.Counter(manifest.get(n, {}).get("scope", "numeric") for n in tests)
    passing_all = {n for n in tests} - {r["name"] for r in results if r["category"] != "passed"}
    numeric = [n for n in tests if manifest.get(n, {}).get("scope", "numeric") == "numeric"]
    if numeric:
        ok = sum(1 for n in numeric if n in passing_all)
        left_out = ", ".join(f"{k} {v}" for k, v in sorted(scope.items()) if k != "numeric")
        tables.append(f"numeric tests passed with every backend: {ok} of {len(numeric)} "
                      f"({100.0 * ok / len(numeric):.1f}%); left out: {left_out or 'none'}")

    if a.all or a.by_op:
        by_op = collections.defaultdict(collections.Counter)
        for r in results:
            op = manifest.get(r["name"], {}).get("op", "?")
            by_op[op][r["category"]] += 1
            by_op[op]["total"] += 1
            by_op[op]["folded"] += r["kind"] == "passed_all_bound"
        op_rows = [[op] + [c["total"], c["passed"], c["folded"]] + [c[k] for k in CATEGORIES[1:]]
                   for op, c in sorted(by_op.items())]
        tables.append(markdown_table(["op", "runs", "passed", "of which folded"] + CATEGORIES[1:],
                                     op_rows))
        ops_full = sum(1 for c in by_op.values() if c["passed"] == c["total"])
        tables.append(f"{ops_full} of {len(by_op)} op types pass all their node tests "
                      f"(runs = tests x backends; *_expanded tests count under the op they expand; "
                      f"folded: every input bound, computed at compile time).")
        only_folded = sorted(op for op, c in by_op.items() if c["passed"] and c["passed"] == c["folded"])
        if only_folded:
            tables.append("op types whose passing node tests all fold (no emitted kernel runs): "
                          + ", ".join(only_folded))

    if a.reasons:
        reasons = collections.Counter()
        for r in results:
            if r["category"] == "refused":
                msg = r["detail"].split(": ", 3)[-1]  # drop 'onnx2c: error: FILE: '
                msg = re.sub(r"^node '[^']*' ", "node ", msg)
                msg = re.sub(r"'[^']*'", "'...'", msg)
                reasons[msg] += 1
        tables.append(markdown_table(["refusals", "reason"],
                                     [[n, m.replace("|", "\\|")] for m, n in reasons.most_common()]))

    print()
    print("\n\n".join(tables))
    print(f"\n{len(tests)} tests, {len(jobs)} runs in {elapsed:.0f}s; details in "
          f"{os.path.join(a.work, 'results.txt')}")
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write("\n\n".join(tables) + "\n")

    # ---- expected list ----
    by_name = collections.defaultdict(list)
    for r in results:
        by_name[r["name"]].append(r)
    passing = {n for n, rs in by_name.items() if all(r["category"] == "passed" for r in rs)}
    failed_expected = sorted(n for n in by_name if n in expected_names and n not in passing)

    if a.update_expected:
        new = [n for n in tests if n in passing and n not in expected_names]
        if new:
            text = b""
            if os.path.exists(a.expected):
                with open(a.expected, "rb") as f:
                    text = f.read()
            with open(a.expected, "a") as f:
                if text and not text.endswith(b"\n"):
                    f.write("\n")
                f.write("".join(n + "\n" for n in new))
        expected_names.update(new)
        print(f"run_backend: appended {len(new)} newly passing tests to {a.expected}")

    if failed_expected:
        print(f"\nFAILED: {len(failed_expected)} tests of {a.expected} did not pass:")
        for n in failed_expected:
            print("  " + n + ": " + ", ".join(f"{r['backend']} {r['kind']}" for r in by_name[n]))
        return 1
    n_exp = sum(1 for n in by_name if n in expected_names)
    print(f"run_backend: all {n_exp} expected tests that ran passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
