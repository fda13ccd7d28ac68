#!/usr/bin/env python3
"""--emit-onnx must write a valid model that onnxruntime runs with the original's results.

    check_emit_onnx.py ONNX2C MODEL_DIR WORK_DIR [-O0|-O1]

Compiles MODEL_DIR/model.onnx with --emit-onnx, checks the written model with the ONNX checker,
runs it with onnxruntime on MODEL_DIR/test_data_set_0 and compares with the expected outputs
(rtol 1e-3, atol 1e-5, as the harness does by default, or MODEL_DIR/tolerance's --rtol/--atol)."""
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
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(out, opts, providers=["CPUExecutionProvider"])
    got = sess.run(None, feeds)
    tol = {"--rtol": 1e-3, "--atol": 1e-5}
    tol_path = os.path.join(model_dir, "tolerance")
    if os.path.exists(tol_path):
        words = open(tol_path).read().split()
        tol.update({k: float(v) for k, v in zip(words[::2], words[1::2])})
    for i, g in enumerate(got):
        want = numpy_helper.to_array(onnx.load_tensor(os.path.join(data, f"output_{i}.pb")))
        np.testing.assert_allclose(g, want, rtol=tol["--rtol"], atol=tol["--atol"])
    ops = sorted({n.op_type for n in model.graph.node})
    print(f"emit-onnx {level}: {len(model.graph.node)} nodes ({', '.join(ops)}), outputs match")


if __name__ == "__main__":
    main()
