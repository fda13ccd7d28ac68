#!/usr/bin/env python3
"""The models of the microcontroller examples, written with onnx.helper (no torch), their sample
inputs as C headers and their reference outputs from onnxruntime.

Needs only onnx, numpy and onnxruntime (requirements.txt). From the repository root:

    .venv/bin/python examples/gen_examples.py

  digits  a small MNIST-shaped CNN: 1x1x28x28 image -> Conv 3x3 (8) + Relu -> MaxPool 2 ->
          Conv 3x3 (16) + Relu -> MaxPool 2 -> Gemm 784x10 -> Softmax; the sample is a
          drawn "7"
  kws     a DS-CNN keyword spotter: 1x1x49x10 MFCC frames -> Conv 10x4 stride 2 (32) + Relu ->
          depthwise 3x3 + Relu -> pointwise 1x1 (32) + Relu -> GlobalAveragePool -> Gemm 32x12
          -> Softmax over 12 keywords; the sample is synthetic MFCCs (a smooth ramp with a
          seeded ripple)

The weights are seeded random numbers (numpy.random.default_rng), not trained: the examples
show the build, the memory figures and the bits, not accuracy. Writes for each NAME
examples/NAME/model.onnx, examples/NAME/sample.h and examples/NAME/test_data_set_0/{input,
output}_0.pb. Deterministic: the same files on every run.
"""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent  # examples/
F32 = TensorProto.FLOAT


def weight(rng, name, shape, fan_in):
    w = rng.standard_normal(shape).astype(np.float32) * np.float32(np.sqrt(2.0 / fan_in))
    return numpy_helper.from_array(w, name)


def layer(rng, name, shape):
    """name.weight of the shape and name.bias, scaled for the layer's fan-in."""
    fan_in = int(np.prod(shape[1:]))
    return [weight(rng, f"{name}.weight", shape, fan_in),
            weight(rng, f"{name}.bias", (shape[0],), fan_in)]


def conv(x, w, b, y, **attrs):
    return helper.make_node("Conv", [x, w, b], [y], name=y, **attrs)


def classifier_head(x):
    """x flattened (Reshape to flat_shape), then the Gemm fc and a Softmax: the output probs."""
    return [
        helper.make_node("Reshape", [x, "flat_shape"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["logits"], name="fc",
                         transB=1),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax", axis=1),
    ]


def digits_model():
    rng = np.random.default_rng(7)
    inits = (layer(rng, "conv1", (8, 1, 3, 3)) + layer(rng, "conv2", (16, 8, 3, 3)) +
             layer(rng, "fc", (10, 784)) +
             [numpy_helper.from_array(np.array([1, 784], np.int64), "flat_shape")])
    nodes = [
        conv("image", "conv1.weight", "conv1.bias", "conv1", kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"),
        helper.make_node("MaxPool", ["relu1"], ["pool1"], name="pool1", kernel_shape=[2, 2],
                         strides=[2, 2]),
        conv("pool1", "conv2.weight", "conv2.bias", "conv2", kernel_shape=[3, 3], pads=[1] * 4),
        helper.make_node("Relu", ["conv2"], ["relu2"], name="relu2"),
        helper.make_node("MaxPool", ["relu2"], ["pool2"], name="pool2", kernel_shape=[2, 2],
                         strides=[2, 2]),
    ] + classifier_head("pool2")
    graph = helper.make_graph(nodes, "digits",
                              [helper.make_tensor_value_info("image", F32, [1, 1, 28, 28])],
                              [helper.make_tensor_value_info("probs", F32, [1, 10])], inits)
    # A "7": a bar along the top and a stroke down to the lower left, on a dark background.
    img = np.zeros((28, 28), np.float32)
    img[5:8, 6:22] = 1.0
    for r in range(8, 24):
        c = 21 - (r - 8) * 10 // 16
        img[r, c - 1:c + 2] = 1.0
    return graph, img.reshape(1, 1, 28, 28)


def kws_model():
    rng = np.random.default_rng(11)
    inits = (layer(rng, "conv1", (32, 1, 10, 4)) + layer(rng, "dw", (32, 1, 3, 3)) +
             layer(rng, "pw", (32, 32, 1, 1)) + layer(rng, "fc", (12, 32)) +
             [numpy_helper.from_array(np.array([1, 32], np.int64), "flat_shape")])
    nodes = [
        conv("mfcc", "conv1.weight", "conv1.bias", "conv1", kernel_shape=[10, 4], strides=[2, 2],
             pads=[4, 1, 5, 2]),
        helper.make_node("Relu", ["conv1"], ["relu1"], name="relu1"),
        conv("relu1", "dw.weight", "dw.bias", "dw", kernel_shape=[3, 3], pads=[1] * 4, group=32),
        helper.make_node("Relu", ["dw"], ["relu2"], name="relu2"),
        conv("relu2", "pw.weight", "pw.bias", "pw", kernel_shape=[1, 1]),
        helper.make_node("Relu", ["pw"], ["relu3"], name="relu3"),
        helper.make_node("GlobalAveragePool", ["relu3"], ["gap"], name="gap"),
    ] + classifier_head("gap")
    graph = helper.make_graph(nodes, "kws",
                              [helper.make_tensor_value_info("mfcc", F32, [1, 1, 49, 10])],
                              [helper.make_tensor_value_info("probs", F32, [1, 12])], inits)
    t = np.arange(49, dtype=np.float32)[:, None]
    k = np.arange(10, dtype=np.float32)[None, :]
    mfcc = np.cos(0.2 * t * (k + 1)) * (10.0 - k) + rng.standard_normal((49, 10)) * 0.5
    return graph, mfcc.astype(np.float32).reshape(1, 1, 49, 10)


def short_hex(x):
    """0x1.2d8426p+3f: the exact float as a C hex literal, without trailing zero digits."""
    if x == 0:
        return "0.0f"
    mant, exp = x.hex().split("p")
    return mant.rstrip("0").rstrip(".") + "p" + exp + "f"


def c_initializer(a, indent="    "):
    """Nested braces, one innermost row (the last dimension) per line."""
    if a.ndim == 1:
        return "{" + ", ".join(short_hex(float(x)) for x in a) + "}"
    inner = (",\n" + indent).join(c_initializer(x, indent) for x in a)
    return "{" + inner + "}"


def c_header(name, array, var):
    """The sample as a C99 initializer with exact hex float literals."""
    dims = "".join(f"[{d}]" for d in array.shape)
    return (f"/* The sample input of examples/{name} (examples/gen_examples.py). */\n"
            f"static const float {var}{dims} =\n    {c_initializer(array)};\n")


def write(name, graph, sample, var):
    d = HERE / name
    (d / "test_data_set_0").mkdir(parents=True, exist_ok=True)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="onnx2c examples/gen_examples.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, d / "model.onnx")
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {graph.input[0].name: sample})
    for kind, arr, vname in (("input", sample, graph.input[0].name),
                             ("output", out, graph.output[0].name)):
        t = numpy_helper.from_array(arr, vname)
        (d / "test_data_set_0" / f"{kind}_0.pb").write_bytes(t.SerializeToString())
    (d / "sample.h").write_text(c_header(name, sample, var))
    print(f"{name}: class {int(out.argmax())}, p={float(out.max()):.4f}")


if __name__ == "__main__":
    write("digits", *digits_model(), "sample_image")
    write("kws", *kws_model(), "sample_mfcc")
