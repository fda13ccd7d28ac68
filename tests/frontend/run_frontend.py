#!/usr/bin/env python3
"""Frontend tests: every tests/frontend/models/NAME must reduce to what its expected.json says,
and still compute what onnxruntime computed on the original model.

    run_frontend.py ONNX2C WORK_DIR [NAME...]

For each model: onnx2c --harness --report-json; the C builds warning-free and its harness
matches the reference outputs; ops_after matches (view ops Reshape/Flatten/Squeeze/Unsqueeze are
free and ignored), or the allowed/forbidden lists hold, or fused_loops is the number of
non-view nodes, and the report's keys listed under "report" have those values (memory figures
computed by hand); refuse: true models must exit 1 with the one line 'onnx2c: error: FILE: ERROR',
ERROR being expected.json's "error" word for word. --emit-onnx output must run in onnxruntime
with the same results. The expectations are the frontend's, so these builds take
--layout=nchw; a model with a Conv is built once more with --layout=nhwc, whose outputs must
have the nchw build's bits. Models listed in known_gaps.txt may fail (they
are reported); a known gap that passes is reported too, so the list can shrink."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VIEWS = {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}
CC = os.environ.get("CC", "cc")


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def check_ops(ops, exp):
    real = {k: v for k, v in ops.items() if k not in VIEWS}
    if exp.get("ops_after") is not None:
        want = {k: v for k, v in exp["ops_after"].items() if k not in VIEWS}
        return None if real == want else f"ops_after {real}, want {want}"
    if "fused_loops" in exp:
        n = sum(real.values())
        return None if n == exp["fused_loops"] else f"{n} kernels {real}, want {exp['fused_loops']}"
    bad = [k for k in real if k in exp.get("ops_after_forbidden", [])]
    bad += [k for k in real if exp.get("ops_after_allowed") and k not in exp["ops_after_allowed"]]
    return f"ops not allowed: {sorted(set(bad))} in {real}" if bad else None


def same_bits_nhwc(onnx2c, d, w, nchw_out):
    """The --layout=nhwc build's outputs, byte for byte against the nchw build's."""
    c, prog, out = (os.path.join(w, s) for s in ("nhwc.c", "nhwc", "out_nhwc"))
    r = sh([onnx2c, os.path.join(d, "model.onnx"), "-o", c, "--harness", "--layout=nhwc"])
    if r.returncode:
        return f"onnx2c --layout=nhwc exit {r.returncode}: {r.stderr.strip()}"
    r = sh([CC, "-std=c99", "-O1", c, "-o", prog, "-lxsmm", "-lxsmmnoblas", "-lm"])
    if r.returncode:
        return "--layout=nhwc C does not build: " + r.stderr.strip()[:500]
    os.makedirs(out, exist_ok=True)
    r = sh([prog, "--require-outputs", "--write-outputs", out, os.path.join(d, "test_data_set_0")])
    if r.returncode:
        return "--layout=nhwc harness: " + (r.stdout + r.stderr).strip()[:500]
    for f in sorted(os.listdir(nchw_out)):
        if open(os.path.join(nchw_out, f), "rb").read() != open(os.path.join(out, f), "rb").read():
            return f"--layout=nhwc {f}: bits differ from --layout=nchw"
    return None


def run_one(onnx2c, name, work):
    d = os.path.join(HERE, "models", name)
    exp = json.load(open(os.path.join(d, "expected.json")))
    w = os.path.join(work, name)
    os.makedirs(w, exist_ok=True)
    c, js = os.path.join(w, "model.c"), os.path.join(w, "report.json")
    r = sh([onnx2c, os.path.join(d, "model.onnx"), "-o", c, "--harness", "--report-json", js,
            "--layout=nchw"])
    if exp.get("refuse"):
        want = f"onnx2c: error: {os.path.join(d, 'model.onnx')}: {exp['error']}"
        ok = r.returncode == 1 and r.stderr.splitlines() == [want]
        return None if ok else (f"must be refused with the one line {want!r}, got exit "
                                f"{r.returncode}: {r.stderr.strip()!r}")
    if r.returncode:
        return f"onnx2c exit {r.returncode}: {r.stderr.strip()}"
    prog = os.path.join(w, "model")
    r = sh([CC, "-std=c99", "-O1", "-Wall", "-Wextra", "-pedantic", "-Werror", c, "-o", prog,
            "-lxsmm", "-lxsmmnoblas", "-lm"])
    if r.returncode:
        return "generated C does not build: " + r.stderr.strip()[:500]
    out = os.path.join(w, "out_nchw")
    os.makedirs(out, exist_ok=True)
    r = sh([prog, "--require-outputs", "--write-outputs", out, os.path.join(d, "test_data_set_0")])
    if r.returncode:
        return "harness: " + (r.stdout + r.stderr).strip()[:500]
    rep = json.load(open(js))
    ops = rep["ops_after"]
    err = check_ops(ops, exp)
    if err:
        return err
    for key, want in exp.get("report", {}).items():
        if rep.get(key) != want:
            return f"report {key} {rep.get(key)}, want {want}"
    if "Conv" in ops:
        err = same_bits_nhwc(onnx2c, d, w, out)
        if err:
            return err
    r = sh([sys.executable, os.path.join(HERE, "..", "check_emit_onnx.py"), onnx2c, d,
            os.path.join(w, "emit")])
    if r.returncode:
        return "emit-onnx: " + (r.stdout + r.stderr).strip()[-500:]
    return None


def main():
    onnx2c, work = sys.argv[1], sys.argv[2]
    names = sys.argv[3:] or sorted(os.listdir(os.path.join(HERE, "models")))
    gaps = {}
    for line in open(os.path.join(HERE, "known_gaps.txt")):
        line = line.split("#")[0].strip()
        if line:
            gaps[line.split()[0]] = line
    failed, fixed, passed = [], [], 0
    for name in names:
        err = run_one(onnx2c, name, work)
        if err is None:
            passed += 1
            print(f"PASS {name}")
            if name in gaps:
                fixed.append(name)
        elif name in gaps:
            print(f"GAP  {name}: {err}")
        else:
            print(f"FAIL {name}: {err}")
            failed.append(name)
    for name in fixed:
        print(f"note: {name} passes now; remove it from known_gaps.txt")
    print(f"{passed} passed, {len(failed)} failed, {len(names) - passed - len(failed)} known gaps")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
