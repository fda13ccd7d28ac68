#!/usr/bin/env python3
"""Hand-built model tests (no torch): graphs written with onnx.helper, references from onnxruntime.

Needs only onnx, numpy and onnxruntime (requirements.txt). From the repository root:

    .venv/bin/python tests/models/gen_handbuilt.py

Writes tests/models/NAME/model.onnx and tests/models/NAME/test_data_set_0/{input,output}_<i>.pb
(the layout of gen_models.py, which CTest runs the same way) for every NAME below. Deterministic:
every model has its own seed (numpy.random.default_rng(seed)).

  concat_repeat  one intermediate read 8 and 64 times by one Concat node each, then a MatMul (the
                 memory planner once overflowed a buffer sized by the number of values)
"""

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent  # tests/models
F32 = TensorProto.FLOAT


def vi(name, shape):
    return helper.make_tensor_value_info(name, F32, list(shape))


def concat_repeat(rng):
    w = rng.standard_normal([192, 16], dtype=np.float32)
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Concat", ["r"] * 8, ["c8"], name="concat8", axis=1),
        helper.make_node("Concat", ["r"] * 64, ["c64"], name="concat64", axis=1),
        helper.make_node("Neg", ["c8"], ["y8"], name="neg"),
        helper.make_node("Sigmoid", ["c64"], ["s64"], name="sigmoid"),
        helper.make_node("MatMul", ["s64", "w"], ["y64"], name="matmul"),
    ]
    graph = helper.make_graph(nodes, "concat_repeat", [vi("x", [2, 3])],
                              [vi("y8", [2, 24]), vi("y64", [2, 16])],
                              [numpy_helper.from_array(w, name="w")])
    return graph, {"x": [2, 3]}


MODELS = [
    # name, builder, seed
    ("concat_repeat", concat_repeat, 1),
]


def run_ort(model, feed):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])
    return sess.run(None, feed)


def write_tensor(array, name, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(numpy_helper.from_array(array, name=name).SerializeToString())


def generate(name, builder, seed):
    rng = np.random.default_rng(seed)
    graph, inputs = builder(rng)
    model = helper.make_model(graph, producer_name="onnx2c-model-tests",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    feed = {k: rng.standard_normal(shape, dtype=np.float32) for k, shape in inputs.items()}
    outs = run_ort(model, feed)
    if any(a.tobytes() != b.tobytes() for a, b in zip(outs, run_ort(model, feed))):
        raise SystemExit(f"error: {name}: onnxruntime outputs differ between two runs")
    out_dir = HERE / name
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "model.onnx").write_bytes(model.SerializeToString())
    data = out_dir / "test_data_set_0"
    for i, vinfo in enumerate(graph.input):
        write_tensor(feed[vinfo.name], vinfo.name, data / f"input_{i}.pb")
    for i, (vinfo, y) in enumerate(zip(graph.output, outs)):
        write_tensor(y, vinfo.name, data / f"output_{i}.pb")
    print(f"{name}: {len(graph.node)} nodes, {len(graph.output)} outputs")


def main():
    for name, builder, seed in MODELS:
        generate(name, builder, seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
