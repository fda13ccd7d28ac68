"""Every way of writing a pattern that the rule tables of fuse_gelu.c and fuse_gemm.c accept is
rewritten, near misses are not, and the rewritten graph computes what the written-out one does.

    rewrite_forms.py ONNX2C WORK_DIR [CC]

Builds one model with a branch per form: GELU as 0.5 * h * (1 + Erf(h / sqrt2)) and the tanh
formula with every product order, h / sqrt2 as a Div or a Mul, h^3 as Pow or products;
MatMul + Add and torchlib's addmm with the operands in either order; a transposed MatMul
operand. Near misses (a constant off by 0.1, an inner value that is also a graph output) must
stay as they are. Requires from -O1 the exact fusion counts and, from its outputs, those of
-O0 (which runs the written-out graph, no rewrites) within the harness's default tolerance.
Needs onnx and numpy only; a few seconds.
"""
import itertools
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from fusion_table import compile_model, run, save_case  # the same steps


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.outputs, self.n = [], [], [], 0

    def const(self, value):
        self.n += 1
        name = f"c{self.n}"
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=np.float32), name))
        return name

    def op(self, op, *ins):
        self.n += 1
        out = f"v{self.n}"
        self.nodes.append(helper.make_node(op, list(ins), [out], name=f"n{self.n}"))
        return out

    def mul(self, a, b, swap):
        return self.op("Mul", b, a) if swap else self.op("Mul", a, b)

    def output(self, v):
        self.outputs.append(helper.make_tensor_value_info(v, TensorProto.FLOAT, None))


def gelu_branch(g, h, kind, tail, arg, swap, half=0.5):
    """0.5 * h * (1 + f(h)) with f = Erf(h / sqrt2) or Tanh(...), written as `tail` (0..2)."""
    if kind == "erf":
        scaled = [lambda: g.op("Div", h, g.const(np.sqrt(2.0))),
                  lambda: g.mul(h, g.const(1 / np.sqrt(2.0)), False),
                  lambda: g.mul(h, g.const(1 / np.sqrt(2.0)), True)][arg]()
        f = g.op("Erf", scaled)
    else:
        cube = [lambda: g.op("Pow", h, g.const(3.0)),
                lambda: g.mul(h, g.op("Mul", h, h), False),
                lambda: g.mul(h, g.op("Mul", h, h), True)][arg]()
        inner = g.op("Add", *((g.mul(cube, g.const(0.044715), swap), h)[:: -1 if swap else 1]))
        f = g.op("Tanh", g.mul(inner, g.const(np.sqrt(2 / np.pi)), not swap))
    term = g.op("Add", *((f, g.const(1.0))[:: -1 if swap else 1]))
    c = g.const(half)
    if tail == 0:
        return g.mul(term, g.mul(h, c, swap), not swap)
    if tail == 1:
        return g.mul(g.mul(term, h, swap), c, not swap)
    return g.mul(g.mul(term, c, swap), h, not swap)


def build(rng):
    g = Graph()
    expect = {"gelu_erf_recognised": 0, "gelu_tanh_recognised": 0}
    for kind in ("erf", "tanh"):
        for tail, arg, swap in itertools.product(range(3), range(3), (False, True)):
            g.output(gelu_branch(g, "H", kind, tail, arg, swap))
            expect[f"gelu_{kind}_recognised"] += 1
    g.output(gelu_branch(g, "H", "erf", 0, 0, False, half=0.6))  # near miss: not GELU
    g.output(gelu_branch(g, "H", "tanh", 1, 0, True, half=0.4))
    n = len(g.nodes)
    g.output(gelu_branch(g, "H", "erf", 2, 1, False))
    g.output(next(o for x in g.nodes[n:] if x.op_type == "Erf" for o in x.output))  # shared

    w = g.const(rng.uniform(-1, 1, (8, 5)))
    bias = g.const(rng.uniform(-1, 1, (5,)))
    alpha, beta = g.const(0.5), g.const(2.0)
    for swap in (False, True):
        mm = g.op("MatMul", "A", w)
        g.output(g.op("Add", *((mm, bias)[:: -1 if swap else 1])))
        mm = g.op("MatMul", "A", w)
        scaled = g.mul(mm, alpha, swap)
        g.output(g.op("Add", *((scaled, g.mul(bias, beta, not swap))[:: -1 if swap else 1])))
        mm = g.op("MatMul", "A", w)
        g.output(g.op("Add", *((g.mul(mm, alpha, swap), bias)[:: -1 if swap else 1])))
    expect.update(matmul_add_to_gemm=2, addmm_to_gemm=4)
    g.output(g.op("MatMul", g.op("Transpose", "AT"), w))  # transA
    g.output(g.op("Gemm", "A", g.op("Transpose", "WT")))  # transB
    expect["transpose_into_gemm"] = 2

    shapes = {"H": [4, 8], "A": [6, 8], "AT": [8, 6], "WT": [5, 8]}
    inputs = [helper.make_tensor_value_info(k, TensorProto.FLOAT, v) for k, v in shapes.items()]
    graph = helper.make_graph(g.nodes, "rewrite_forms", inputs, g.outputs, g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return model, shapes, expect


def main():
    onnx2c, work = sys.argv[1:3]
    cc = sys.argv[3] if len(sys.argv) > 3 else "cc"
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(11)
    model, shapes, expect = build(rng)
    inputs = {k: rng.uniform(-3, 3, v).astype(np.float32) for k, v in shapes.items()}
    path, data = save_case(work, "rewrite_forms", model, inputs)

    _, exe0, _ = compile_model(onnx2c, cc, path, work, 0)
    _, exe1, rep = compile_model(onnx2c, cc, path, work, 1)
    got = {k: rep["fusions"].get(k, 0) for k in expect}
    if got != expect:
        sys.exit(f"FAIL: fusions {got}, want {expect}")
    ops = rep["ops_after"]
    want_gelu = expect["gelu_erf_recognised"] + expect["gelu_tanh_recognised"]
    if ops.get("Gelu") != want_gelu:  # the near misses stay (as elementwise chains)
        sys.exit(f"FAIL: ops after -O1 {ops}: want {want_gelu} Gelu")
    if ops.get("MatMul") or ops.get("Transpose"):
        sys.exit(f"FAIL: ops after -O1 {ops}: a MatMul or Transpose was not folded into a Gemm")
    run([exe0, "--write-outputs", data, data])  # -O0's outputs become the expected ones
    out = run([exe1, data])
    print(out.strip().splitlines()[-1] if out.strip() else "")
    print(f"ok: {sum(expect.values())} rewrites of {len(model.graph.output)} branches, "
          f"outputs of -O0")


if __name__ == "__main__":
    main()
