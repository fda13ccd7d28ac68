#!/usr/bin/env python3
"""Writes tests/models/mlp_external/: a small MLP whose weights live in an external data file,
the way PyTorch's exporter saves every model by default (torch.onnx.export(..., dynamo=True)
puts all initializers in model.onnx.data next to model.onnx).

    .venv/bin/python tests/models/gen_external_data.py

Built with onnx.helper (no torch): Linear(16, 32) + Relu + Linear(32, 8) as Gemm(transB=1), a
Reshape through a Constant shape (onnxruntime reads shapes only from inline data) and an Add of
a broadcast offset, every initializer (even the 16-byte offset) saved to model.onnx.data by
onnx.save_model(..., size_threshold=0). Reference
outputs come from onnxruntime (CPU, one thread, graph optimisations off). Deterministic: the
same bytes on every run.
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mlp_external")


def main():
    rng = np.random.default_rng(15)
    f32 = TensorProto.FLOAT
    inits = [
        numpy_helper.from_array(rng.standard_normal((32, 16)).astype(np.float32) * 0.3,
                                "fc1.weight"),
        numpy_helper.from_array(rng.standard_normal((32,)).astype(np.float32), "fc1.bias"),
        numpy_helper.from_array(rng.standard_normal((8, 32)).astype(np.float32) * 0.2,
                                "fc2.weight"),
        numpy_helper.from_array(rng.standard_normal((8,)).astype(np.float32), "fc2.bias"),
        numpy_helper.from_array(rng.standard_normal((1, 1, 4)).astype(np.float32), "offset"),
    ]
    nodes = [
        helper.make_node("Gemm", ["x", "fc1.weight", "fc1.bias"], ["h"], name="fc1", transB=1),
        helper.make_node("Relu", ["h"], ["r"], name="relu"),
        helper.make_node("Gemm", ["r", "fc2.weight", "fc2.bias"], ["z"], name="fc2", transB=1),
        helper.make_node("Constant", [], ["shape"], name="shape",
                         value=numpy_helper.from_array(np.array([2, 2, 4], np.int64))),
        helper.make_node("Reshape", ["z", "shape"], ["zr"], name="reshape"),
        helper.make_node("Add", ["zr", "offset"], ["y"], name="add"),
    ]
    graph = helper.make_graph(nodes, "main_graph",
                              [helper.make_tensor_value_info("x", f32, [2, 16])],
                              [helper.make_tensor_value_info("y", f32, [2, 2, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)],
                              producer_name="onnx2c-tests")
    model.ir_version = 10
    onnx.checker.check_model(model)

    os.makedirs(os.path.join(OUT, "test_data_set_0"), exist_ok=True)
    path = os.path.join(OUT, "model.onnx")
    data = os.path.join(OUT, "model.onnx.data")
    if os.path.exists(data):
        os.remove(data)  # onnx appends to an existing data file
    onnx.save_model(model, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx.data", size_threshold=0)
    saved = onnx.load(path, load_external_data=False)
    assert all(t.data_location == TensorProto.EXTERNAL for t in saved.graph.initializer)

    x = rng.standard_normal((2, 16)).astype(np.float32)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    (y,) = sess.run(None, {"x": x})
    for fname, arr, name in (("input_0.pb", x, "x"), ("output_0.pb", y, "y")):
        with open(os.path.join(OUT, "test_data_set_0", fname), "wb") as f:
            f.write(numpy_helper.from_array(arr, name).SerializeToString())
    print(f"gen_external_data: wrote {OUT} ({os.path.getsize(data)} bytes of external data)")


if __name__ == "__main__":
    main()
