#!/usr/bin/env python3
"""Small int8 QDQ models: float CNNs and MLPs built with onnx.helper from seeded random
weights, quantised by onnxruntime's quantize_static (QDQ format), with reference outputs.

Developer-run; the results are committed, so the tests need neither network nor this script.
Needs only the test venv (onnx, numpy, onnxruntime, whose quantiser needs no torch). From the
repository root:

    .venv/bin/python tests/models/gen_qdq_models.py

For every model NAME it writes tests/models/NAME/model.onnx, test_data_set_0/input_0.pb,
output_0.pb and tolerance (the harness options the model tests pass; see below).

Models (miniatures of MLPerf Tiny's DS-CNN and ResNet-8, and an MLP):
    cnn: Conv 3x3 stride 2 + Relu, depthwise 3x3 + Relu, pointwise 1x1 + Relu, Add residual,
         Conv 3x3 + Relu, MaxPool, GlobalAveragePool, Flatten, Gemm
    mlp: MatMul + Add + Relu, Gemm + Relu, Gemm
Variants: activations uint8 or int8, weights int8 per channel or per tensor (symmetric, as
the quantiser does for int8 weights), bias int32.

Calibration: quantize_static with a data reader of 16 seeded random inputs (MinMax).

Reference outputs: onnxruntime, CPUExecutionProvider, one thread, graph optimisations off:
the QDQ graph as the ONNX standard defines it (DequantizeLinear, float Conv/Gemm,
QuantizeLinear). An integer kernel computes the exact sum where the float graph rounds its
float accumulation, so a value next to a rounding tie may land one quantum away, and the
difference can grow through the following layers. The tolerance file gives atol = N output
quanta, N measured here as the largest difference (in output quanta) between that reference
and onnxruntime's own integer kernels (graph optimisations on: QLinearConv, QGemm) over 64
random inputs, plus one.
"""

import os
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                      quantize_static)

HERE = Path(__file__).resolve().parent
OPSET = 17


def weight(rng, name, shape, fan_in):
    a = (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)
    return numpy_helper.from_array(a, name)


def cnn_model(rng):
    """1x1x20x10 input (a DS-CNN-like spectrogram) -> 4 classes."""
    inits, nodes = [], []

    def conv(name, x, cin, cout, k, stride=1, group=1, relu=True):
        inits.append(weight(rng, name + ".w", [cout, cin // group, k, k], cin // group * k * k))
        inits.append(numpy_helper.from_array(
            (rng.standard_normal(cout) * 0.1).astype(np.float32), name + ".b"))
        p = k // 2
        nodes.append(helper.make_node("Conv", [x, name + ".w", name + ".b"], [name],
                                      kernel_shape=[k, k], strides=[stride, stride],
                                      pads=[p, p, p, p], group=group, name=name))
        if not relu:
            return name
        nodes.append(helper.make_node("Relu", [name], [name + ".relu"], name=name + ".relu"))
        return name + ".relu"

    y = conv("conv1", "input", 1, 16, 3, stride=2)
    d = conv("dw", y, 16, 16, 3, group=16)
    pw = conv("pw", d, 16, 16, 1, relu=False)
    nodes.append(helper.make_node("Add", [pw, y], ["res"], name="res"))
    nodes.append(helper.make_node("Relu", ["res"], ["res.relu"], name="res.relu"))
    c = conv("conv2", "res.relu", 16, 24, 3)
    nodes.append(helper.make_node("MaxPool", [c], ["pool"], kernel_shape=[2, 1], strides=[2, 1],
                                  name="pool"))
    nodes.append(helper.make_node("GlobalAveragePool", ["pool"], ["gap"], name="gap"))
    nodes.append(helper.make_node("Flatten", ["gap"], ["flat"], axis=1, name="flat"))
    inits.append(weight(rng, "fc.w", [4, 24], 24))
    inits.append(numpy_helper.from_array((rng.standard_normal(4) * 0.1).astype(np.float32),
                                         "fc.b"))
    nodes.append(helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["output"], transB=1,
                                  name="fc"))
    graph = helper.make_graph(
        nodes, "qdq_cnn", [helper.make_tensor_value_info("input", TensorProto.FLOAT,
                                                         [1, 1, 20, 10])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 4])], inits)
    return graph, [1, 1, 20, 10]


def mlp_model(rng):
    """2x64 input -> 10 outputs."""
    inits = [weight(rng, "fc1.w", [64, 96], 64),
             numpy_helper.from_array((rng.standard_normal(96) * 0.1).astype(np.float32), "fc1.b"),
             weight(rng, "fc2.w", [48, 96], 96),
             numpy_helper.from_array((rng.standard_normal(48) * 0.1).astype(np.float32), "fc2.b"),
             weight(rng, "fc3.w", [48, 10], 48),
             numpy_helper.from_array((rng.standard_normal(10) * 0.1).astype(np.float32), "fc3.b")]
    nodes = [helper.make_node("MatMul", ["input", "fc1.w"], ["mm1"], name="fc1"),
             helper.make_node("Add", ["mm1", "fc1.b"], ["add1"], name="fc1.add"),
             helper.make_node("Relu", ["add1"], ["h1"], name="relu1"),
             helper.make_node("Gemm", ["h1", "fc2.w", "fc2.b"], ["g2"], transB=1, name="fc2"),
             helper.make_node("Relu", ["g2"], ["h2"], name="relu2"),
             helper.make_node("Gemm", ["h2", "fc3.w", "fc3.b"], ["output"], name="fc3")]
    graph = helper.make_graph(
        nodes, "qdq_mlp", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [2, 64])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [2, 10])], inits)
    return graph, [2, 64]


class Reader(CalibrationDataReader):
    def __init__(self, shape, seed):
        rng = np.random.default_rng(seed)
        self.data = iter([{"input": rng.standard_normal(shape).astype(np.float32)}
                          for _ in range(16)])

    def get_next(self):
        return next(self.data, None)


def run(path, x, optimise):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimise else
                                     ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    return sess.run(None, {"input": x})[0]


def output_scale(model):
    """The scale of the DequantizeLinear that writes the graph output."""
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for n in model.graph.node:
        if n.output[0] == model.graph.output[0].name and n.op_type == "DequantizeLinear":
            return float(inits[n.input[1]])
    return None


def write_tensor(array, name, path):
    t = numpy_helper.from_array(array, name)
    path.write_bytes(t.SerializeToString())


def make(name, builder, act, per_channel, seed):
    rng = np.random.default_rng(seed)
    graph, shape = builder(rng)
    float_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    float_model.ir_version = 8
    onnx.checker.check_model(float_model, full_check=True)
    out_dir = HERE / name
    (out_dir / "test_data_set_0").mkdir(parents=True, exist_ok=True)
    tmp = out_dir / "float.onnx"
    onnx.save(float_model, tmp)
    path = out_dir / "model.onnx"
    quantize_static(str(tmp), str(path), Reader(shape, seed + 1), quant_format=QuantFormat.QDQ,
                    per_channel=per_channel, activation_type=act, weight_type=QuantType.QInt8)
    os.remove(tmp)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    scale = output_scale(model)
    # Tolerance: the float graph against onnxruntime's integer kernels, in output quanta.
    rng = np.random.default_rng(seed + 2)
    worst = 0.0
    for _ in range(64):
        x = rng.standard_normal(shape).astype(np.float32)
        worst = max(worst, float(np.max(np.abs(run(path, x, True) - run(path, x, False)))))
    quanta = int(round(worst / scale)) + 1
    x = np.random.default_rng(seed + 3).standard_normal(shape).astype(np.float32)
    y = run(path, x, False)
    assert np.array_equal(y, run(path, x, False)), "reference not reproducible"
    write_tensor(x, "input", out_dir / "test_data_set_0" / "input_0.pb")
    write_tensor(y, "output", out_dir / "test_data_set_0" / "output_0.pb")
    atol = scale * quanta * 1.001
    (out_dir / "tolerance").write_text(f"--rtol 0 --atol {atol:.9g}\n")
    ops = {}
    for n in model.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    print(f"{name}: {len(model.graph.node)} nodes {ops}; output scale {scale:.6g}, "
          f"float graph vs integer kernels of onnxruntime: up to {worst / scale:.2f} quanta; "
          f"atol {quanta} quanta")


def main():
    make("qdq_cnn_u8_pc", cnn_model, QuantType.QUInt8, True, 80)
    make("qdq_cnn_s8_pt", cnn_model, QuantType.QInt8, False, 81)
    make("qdq_mlp_u8_pt", mlp_model, QuantType.QUInt8, False, 82)
    make("qdq_mlp_s8_pc", mlp_model, QuantType.QInt8, True, 83)


if __name__ == "__main__":
    main()
