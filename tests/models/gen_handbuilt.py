#!/usr/bin/env python3
"""Hand-built model tests (no torch): graphs written with onnx.helper, references from onnxruntime.

Needs only onnx, numpy and onnxruntime (requirements.txt). From the repository root:

    .venv/bin/python tests/models/gen_handbuilt.py

Writes tests/models/NAME/model.onnx and tests/models/NAME/test_data_set_0/{input,output}_<i>.pb
(the layout of gen_models.py, which CTest runs the same way) for every NAME below. Deterministic:
every model has its own seed (numpy.random.default_rng(seed)).

  concat_repeat  one intermediate read 8 and 64 times by one Concat node each, then a MatMul (the
                 memory planner once overflowed a buffer sized by the number of values)
  inplace_elementwise  unary and broadcasting binary ops whose outputs the planner may put in
                 the buffer of a dying input (through a Reshape view too), and ones it must not
                 (Mul(c, c); an operand read again by a later op)
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


def inplace_elementwise(rng):
    w = rng.standard_normal([256, 8], dtype=np.float32) * np.float32(0.1)
    nodes = [
        helper.make_node("Relu", ["x"], ["a"], name="relu"),
        helper.make_node("Exp", ["a"], ["b"], name="exp"),              # in place on a
        helper.make_node("Neg", ["bias"], ["nb"], name="neg"),
        helper.make_node("Add", ["nb", "b"], ["c"], name="add"),        # on b, operand 2
        helper.make_node("Mul", ["c", "c"], ["d"], name="square"),      # reads c twice
        helper.make_node("Sub", ["d", "c"], ["e"], name="sub"),         # c dies here, d too
        helper.make_node("Sigmoid", ["e"], ["f"], name="sigmoid"),
        helper.make_node("Reshape", ["f", "flat"], ["g"], name="flatten"),
        helper.make_node("Tanh", ["g"], ["h"], name="tanh"),            # on f through a view
        helper.make_node("Mul", ["h", "a2"], ["k"], name="mul_by_x"),   # a2 read again below
        helper.make_node("Add", ["k", "a2"], ["m"], name="add_x"),
        helper.make_node("Reshape", ["m", "rows"], ["n"], name="rows"),
        helper.make_node("MatMul", ["n", "w"], ["y"], name="matmul"),
        helper.make_node("Relu", ["x2"], ["a2"], name="relu2"),
    ]
    # relu2 is listed last in the file but must run before mul_by_x: sort topologically.
    nodes = [nodes[-1]] + nodes[:-1]
    inits = [numpy_helper.from_array(w, name="w"),
             numpy_helper.from_array(np.array([256], dtype=np.int64), name="flat"),
             numpy_helper.from_array(np.array([1, 256], dtype=np.int64), name="rows")]
    graph = helper.make_graph(nodes, "inplace_elementwise",
                              [vi("x", [4, 64]), vi("bias", [64]), vi("x2", [256])],
                              [vi("y", [1, 8])], inits)
    return graph, {"x": [4, 64], "bias": [64], "x2": [256]}


MODELS = [
    # name, builder, seed
    ("concat_repeat", concat_repeat, 1),
    ("inplace_elementwise", inplace_elementwise, 2),
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
