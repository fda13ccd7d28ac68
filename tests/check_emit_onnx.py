#!/usr/bin/env python3
"""--emit-onnx must write a valid model that onnxruntime runs with the original's results.

    check_emit_onnx.py ONNX2C MODEL_DIR WORK_DIR [-O0|-O1]

Compiles MODEL_DIR/model.onnx with --emit-onnx, checks the written model with the ONNX checker,
runs it with onnxruntime on MODEL_DIR/test_data_set_0 and compares with the expected outputs
(rtol 1e-3, atol 1e-5, as the harness does by default, or MODEL_DIR/tolerance's --rtol/--atol).

One exception, for integer models: onnxruntime's uint8 x int8 products on x86-64 with AVX2 but
no VNNI add pairs of products in 16 bits, which saturate (onnxruntime issue 16105), so its
QLinearConv differs from the exact integer result. When the written model has such a product
and onnxruntime's own fused run of the original model misses the expected outputs too, the
written model must match that run instead (the same kernels on the same machine)."""
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def main():
    onnx2c, model_dir, work = sys.argv[1:4]
    level = sys.argv[4] if len(sys.argv) > 4 else "-O1"
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "optimised.onnx")
    subprocess.run([onnx2c, os.path.join(model_dir, "model.onnx"), "-o",
                    os.path.join(work, "model.c"), "--emit-onnx", out, level], check=True)
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    data = os.path.join(model_dir, "test_data_set_0")
    feeds = {}
    for i, vi in enumerate(model.graph.input):
        feeds[vi.name] = numpy_helper.to_array(onnx.load_tensor(os.path.join(data, f"input_{i}.pb")))
    got = run_ort(out, feeds, ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    tol = {"--rtol": 1e-3, "--atol": 1e-5}
    tol_path = os.path.join(model_dir, "tolerance")
    if os.path.exists(tol_path):
        words = open(tol_path).read().split()
        tol.update({k: float(v) for k, v in zip(words[::2], words[1::2])})
    want = [numpy_helper.to_array(onnx.load_tensor(os.path.join(data, f"output_{i}.pb")))
            for i in range(len(got))]
    against = "the expected outputs"
    if not all_close(got, want, tol) and has_u8_s8_product(model):
        fused = run_ort(os.path.join(model_dir, "model.onnx"), feeds,
                        ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
        if not all_close(fused, want, tol):
            want, against = fused, "onnxruntime's fused run of the original (16-bit u8 x s8 sums)"
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=tol["--rtol"], atol=tol["--atol"])
    ops = sorted({n.op_type for n in model.graph.node})
    print(f"emit-onnx {level}: {len(model.graph.node)} nodes ({', '.join(ops)}), "
          f"outputs match {against}")


def run_ort(path, feeds, level):
    opts = ort.SessionOptions()
    opts.graph_optimization_level = level
    sess = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def all_close(got, want, tol):
    return all(np.allclose(g, w, rtol=tol["--rtol"], atol=tol["--atol"]) for g, w in zip(got, want))


def has_u8_s8_product(model):
    """Whether a QLinearConv, QLinearMatMul, ConvInteger or MatMulInteger has an int8 weight (an
    initializer): the products onnxruntime sums in 16 bits when the input is uint8."""
    types = {t.name: t.data_type for t in model.graph.initializer}
    weight_at = {"QLinearConv": 3, "QLinearMatMul": 3, "ConvInteger": 1, "MatMulInteger": 1}
    for n in model.graph.node:
        at = weight_at.get(n.op_type)
        if at is not None and len(n.input) > at and types.get(n.input[at]) == onnx.TensorProto.INT8:
            return True
    return False


if __name__ == "__main__":
    main()
