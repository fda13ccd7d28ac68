"""Every op the op table flags OP_EPILOGUE fuses after a Gemm and after a Conv, with the bits
of the unfused graph.

    fusion_table.py ONNX2C OPS_C WORK_DIR [CC]

Reads the flags column of the op table (compiler/ops.c) rather than a list of its own, so an op
that gains the flag is tested and one that should have it but does not is visible in the
printed list. Builds one model with a Gemm -> op and a Conv -> op branch per flagged op (a
binary op's other operand is a graph input, so no weight folding changes its rounding),
compiles it with -O0 (no rewrites) and -O1, and requires from -O1: each op emitted as an
epilogue of its own producer, one kernel per branch, and outputs equal bit for bit to -O0's
(harness --exact). Needs onnx and numpy only; a few seconds.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 24  # Swish is the newest op in the flagged set


def epilogue_ops(ops_c):
    """Names of the rows whose flags column expands to something with OP_EPILOGUE."""
    src = open(ops_c).read()
    macros = dict(re.findall(r"^#define\s+(\w+)\s+(.*?)\s*(?:/\*.*)?$", src, re.M))

    def expand(expr):
        for word in re.findall(r"\w+", expr):
            if word in macros:
                expr = expr.replace(word, expand(macros[word]))
        return expr

    names = []
    for row in re.findall(r'^\s*\{"([^"]+)",(.*)\},\s*$', src, re.M):
        fields = [f.strip() for f in row[1].split(",")]
        if "OP_EPILOGUE" in expand(fields[6]) and "(" not in row[0]:
            names.append(row[0])
    return names


def const(name, arr):
    return numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name)


def build(ops, rng):
    """X_g [4,6] -> Gemm -> op; X_c [1,3,5,5] -> Conv 3x3 -> op; R_* the binary ops' operands."""
    inits = [
        const("B", rng.uniform(-1, 1, (6, 8))),
        const("C", rng.uniform(-1, 1, (8,))),
        const("W", rng.uniform(-0.5, 0.5, (4, 3, 3, 3))),
        const("WB", rng.uniform(-1, 1, (4,))),
        const("lo", -1.5),
        const("hi", 2.0),
    ]
    shapes = {"X_g": [4, 6], "R_g": [4, 8], "X_c": [1, 3, 5, 5], "R_c": [1, 4, 3, 3]}
    inputs = [helper.make_tensor_value_info(k, TensorProto.FLOAT, v) for k, v in shapes.items()]
    nodes, outputs, branches = [], [], []
    for op in ops:
        for kind in ("gemm", "conv"):
            x, r, y = f"X_{kind[0]}", f"R_{kind[0]}", f"{kind}_{op}_y"
            if kind == "gemm":
                nodes.append(helper.make_node("Gemm", [x, "B", "C"], [y], name=f"{kind}_{op}"))
            else:
                nodes.append(helper.make_node("Conv", [x, "W", "WB"], [y], name=f"{kind}_{op}"))
            ins = [y]
            if op in ("Add", "Sub", "Mul", "Div", "Pow"):
                ins.append(r)
            elif op == "Clip":
                ins += ["lo", "hi"]
            act = f"{kind}_{op}_act"
            nodes.append(helper.make_node(op, ins, [f"{kind}_{op}_out"], name=act))
            outputs.append(helper.make_tensor_value_info(f"{kind}_{op}_out", TensorProto.FLOAT, None))
            branches.append((op, act))
    graph = helper.make_graph(nodes, "fusion_table", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    return model, shapes, branches


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout


def compile_model(onnx2c, cc, model, work, level):
    c, exe, rep = (os.path.join(work, f"m{level}{s}") for s in (".c", "", ".json"))
    run([onnx2c, model, "-o", c, "--harness", "--gemm=portable", f"-O{level}", "--report-json", rep])
    run([cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror", c, "-o", exe, "-lm"])
    return open(c).read(), exe, json.load(open(rep))


def save_case(work, name, model, inputs):
    """WORK/NAME.onnx and its inputs (name -> array, in graph order) as WORK/test_data_set_0."""
    path = os.path.join(work, f"{name}.onnx")
    onnx.save(model, path)
    data = os.path.join(work, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    for f in os.listdir(data):
        os.remove(os.path.join(data, f))
    for i, (k, x) in enumerate(inputs.items()):
        t = numpy_helper.from_array(x, k)
        open(os.path.join(data, f"input_{i}.pb"), "wb").write(t.SerializeToString())
    return path, data


def main():
    onnx2c, ops_c, work = sys.argv[1:4]
    cc = sys.argv[4] if len(sys.argv) > 4 else "cc"
    os.makedirs(work, exist_ok=True)
    ops = epilogue_ops(ops_c)
    print(f"{len(ops)} ops flagged OP_EPILOGUE: {' '.join(ops)}")
    if len(ops) < 40:
        sys.exit("FAIL: the table lost OP_EPILOGUE flags (44 expected when this test was written)")
    rng = np.random.default_rng(10)
    model, shapes, branches = build(ops, rng)
    inputs = {}
    for name, shape in shapes.items():
        x = rng.uniform(-3, 3, shape).astype(np.float32)
        if name.startswith("R_"):
            x = np.where(np.abs(x) < 0.25, 0.5, x).astype(np.float32)  # Div: no zero divisor
        inputs[name] = x
    path, data = save_case(work, "fusion_table", model, inputs)

    _, exe0, rep0 = compile_model(onnx2c, cc, path, work, 0)
    c1, exe1, rep1 = compile_model(onnx2c, cc, path, work, 1)
    failed = [op for op, act in branches if f"/* epilogue: {op} '{act}' */" not in c1]
    if failed:
        sys.exit(f"FAIL: not fused as an epilogue: {' '.join(sorted(set(failed)))}")
    if rep1["nodes_after"] != len(branches) or rep0["nodes_after"] != 2 * len(branches):
        sys.exit(f"FAIL: nodes after -O1 {rep1['nodes_after']}, -O0 {rep0['nodes_after']}; "
                 f"want {len(branches)} and {2 * len(branches)}")
    run([exe0, "--write-outputs", data, data])  # -O0's outputs become the expected ones
    out = run([exe1, "--exact", data])
    print(out.strip().splitlines()[-1] if out.strip() else "")
    print(f"ok: {len(branches)} branches fused (Gemm and Conv x {len(ops)} ops), bits of -O0")


if __name__ == "__main__":
    main()
