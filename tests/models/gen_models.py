#!/usr/bin/env python3
"""Export small PyTorch models to ONNX, with reference outputs from onnxruntime.

Developer-run only; the results are committed, so building and testing onnx2c
never needs PyTorch. From the repository root:

    python3 -m venv .venv-torch && .venv-torch/bin/pip install -r tests/models/requirements-dev.txt && .venv-torch/bin/python tests/models/gen_models.py

Pinned versions are in tests/models/requirements-dev.txt (torch 2.15.0,
onnx 1.23.2, numpy 2.4.6, onnxruntime 1.32.0, onnxscript 0.7.2).

For every model NAME it writes, and nothing else:

    tests/models/NAME/model.onnx
    tests/models/NAME/test_data_set_0/input_0.pb    serialized onnx.TensorProto,
    tests/models/NAME/test_data_set_0/output_0.pb   named like the graph input/output

(the ONNX backend-test layout), plus a copy of mlp_b1 as examples/mlp/ (the
example a newcomer compiles first). All paths are relative to this file.

Export: TorchScript exporter (dynamo=False), opset 17, fixed shapes (no dynamic
axes), models in eval mode, do_constant_folding=True -- except the models with
BatchNormalization, which use training=EVAL and do_constant_folding=False so
that the exporter does not fold BN into the preceding Conv (it does so in its
eval peephole pass, which runs only together with constant folding); the
script checks that BatchNormalization nodes are in those graphs.

Reference outputs: onnxruntime, CPUExecutionProvider, one thread, graph
optimisations off (so the reference computes the graph as written), run twice
and required to be bit-identical.

Determinism: weights come from torch.manual_seed(seed) per model, inputs from
numpy.random.default_rng(seed) per model, so each model is reproducible on its
own, independent of the order in which models are generated.

The script prints each model's op-type histogram and fails if any op is outside
SUPPORTED_OPS (the ops onnx2c supports).

The recurrent models (HELPER_MODELS: kws_gru, conv_lstm64, rnn_bidir, rnn_stack) are written with
onnx.helper, without torch, weights and inputs from numpy.random.default_rng(seed);
`gen_models.py --no-torch` writes only those:

    .venv/bin/python tests/models/gen_models.py --no-torch
"""

import collections
import os
import sys
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

try:
    import torch
    from torch import nn
except ImportError:  # --no-torch: only the onnx.helper models below, which need no torch
    torch = None

    class nn:  # lets the torch model classes be defined; they are only built with torch
        Module = object

HERE = Path(__file__).resolve().parent  # tests/models
EXAMPLES_MLP = HERE.parent.parent / "examples" / "mlp"

OPSET = 17

SUPPORTED_OPS = {
    "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Relu", "LeakyRelu",
    "Sigmoid", "Tanh", "Clip", "Softmax", "LogSoftmax", "Conv", "MaxPool",
    "AveragePool", "GlobalAveragePool", "BatchNormalization", "Flatten",
    "Reshape", "Transpose", "Concat", "Identity", "Dropout", "Constant",
    "Shape", "Gather", "Squeeze", "Unsqueeze",
}


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.relu = nn.ReLU()
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc2(self.relu(self.fc1(x)))


class LeNet5(nn.Module):
    """Classic LeNet-5; the second pool is an average pool (covers AveragePool)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5, padding=2)   # 28x28 -> 28x28
        self.pool1 = nn.MaxPool2d(2)                             # -> 14x14
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)             # -> 10x10
        self.pool2 = nn.AvgPool2d(2)                             # -> 5x5
        self.flatten = nn.Flatten(1)                             # -> 400
        self.fc1 = nn.Linear(400, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
        self.relu = nn.ReLU()

    def forward(self, x):
        x = self.pool1(self.relu(self.conv1(x)))
        x = self.pool2(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


class ResNetBasicBlock(nn.Module):
    """conv3x3-BN-ReLU-conv3x3-BN, + identity shortcut, ReLU."""

    def __init__(self, channels=16):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + x)


class InvertedResidual(nn.Module):
    """MobileNetV2 block, stride 1, in == out channels, so with the residual add."""

    def __init__(self, channels=16, expand=6):
        super().__init__()
        hidden = channels * expand
        self.expand = nn.Conv2d(channels, hidden, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(hidden)
        self.dw = nn.Conv2d(hidden, hidden, 3, stride=1, padding=1, groups=hidden, bias=False)
        self.bn2 = nn.BatchNorm2d(hidden)
        self.project = nn.Conv2d(hidden, channels, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(channels)
        self.relu6 = nn.ReLU6()  # exports as Clip(0, 6)

    def forward(self, x):
        y = self.relu6(self.bn1(self.expand(x)))
        y = self.relu6(self.bn2(self.dw(y)))
        y = self.bn3(self.project(y))
        return x + y


class AudioConv1d(nn.Module):
    """1-D conv net on a raw waveform [1, 1, 400] -> class probabilities [1, 4].

    Also carries the LeakyRelu and Sigmoid coverage: a 1x1 conv with LeakyReLU,
    then a sigmoid gate (x * sigmoid(conv1x1(x))) before global average pooling.
    """

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(1, 8, kernel_size=9, stride=2, padding=4)  # 400 -> 200
        self.relu = nn.ReLU()
        self.pool1 = nn.MaxPool1d(2)                                      # -> 100
        self.conv2 = nn.Conv1d(8, 16, kernel_size=5, dilation=2)          # -> 92
        self.tanh = nn.Tanh()
        self.pool2 = nn.AvgPool1d(2)                                      # -> 46
        self.conv3 = nn.Conv1d(16, 16, kernel_size=1)
        self.lrelu = nn.LeakyReLU(0.1)
        self.gate = nn.Conv1d(16, 16, kernel_size=1)
        self.sigmoid = nn.Sigmoid()
        self.gap = nn.AdaptiveAvgPool1d(1)                                # -> 1
        self.flatten = nn.Flatten(1)                                      # -> 16
        self.fc = nn.Linear(16, 4)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        x = self.pool1(self.relu(self.conv1(x)))
        x = self.pool2(self.tanh(self.conv2(x)))
        x = self.lrelu(self.conv3(x))
        x = x * self.sigmoid(self.gate(x))
        x = self.flatten(self.gap(x))
        return self.softmax(self.fc(x))


def randomize_batchnorm(model, gen):
    """Non-trivial BN parameters and running statistics (var > 0)."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                m.weight.copy_(torch.rand(n, generator=gen) + 0.5)         # [0.5, 1.5)
                m.bias.copy_(torch.randn(n, generator=gen) * 0.2)
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.2)
                m.running_var.copy_(torch.rand(n, generator=gen) * 1.5 + 0.25)  # [0.25, 1.75)


# name, constructor, input shape, seed, has BatchNormalization, input scale.
# The input is scale * standard normal; mobilenetv2_block uses scale 4 so that
# ReLU6's upper bound is actually reached (about 2% of the first Clip's inputs
# are above 6), not only its lower bound.
MODELS = [
    ("mlp_b1", MLP, (1, 784), 1, False, 1.0),
    ("mlp_b64", MLP, (64, 784), 2, False, 1.0),
    ("lenet5", LeNet5, (1, 1, 28, 28), 3, False, 1.0),
    ("resnet_block", ResNetBasicBlock, (1, 16, 16, 16), 4, True, 1.0),
    ("mobilenetv2_block", InvertedResidual, (1, 16, 14, 14), 5, True, 4.0),
    ("audio_conv1d", AudioConv1d, (1, 1, 400), 6, False, 1.0),
]


# --------------------------------------------------------------------------
# Export and reference outputs
# --------------------------------------------------------------------------

def build(ctor, seed, has_bn):
    torch.manual_seed(seed)
    model = ctor()
    if has_bn:
        randomize_batchnorm(model, torch.Generator().manual_seed(seed + 1000))
    return model.eval()


def export(model, x, path, has_bn):
    path.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchScript-exporter deprecation notices
        torch.onnx.export(
            model,
            (x,),
            str(path),
            dynamo=False,
            opset_version=OPSET,
            input_names=["input"],
            output_names=["output"],
            dynamic_axes=None,
            export_params=True,
            keep_initializers_as_inputs=False,
            training=torch.onnx.TrainingMode.EVAL,
            # With folding on, the exporter fuses BN into the Conv; keep BN.
            do_constant_folding=not has_bn,
        )


def run_ort(path, feed):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feed)


def static_shape(value_info):
    dims = value_info.type.tensor_type.shape.dim
    if any(not d.HasField("dim_value") for d in dims):
        raise SystemExit(f"error: {value_info.name} has a non-static shape: {dims}")
    return [d.dim_value for d in dims]


def op_histogram(graph):
    return collections.Counter(n.op_type for n in graph.node)


def write_tensor(array, name, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(numpy_helper.from_array(array, name=name).SerializeToString())


def generate(name, ctor, shape, seed, has_bn, scale):
    out_dir = HERE / name
    model_path = out_dir / "model.onnx"

    model = build(ctor, seed, has_bn)
    rng = np.random.default_rng(seed)
    x_np = rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)
    export(model, torch.from_numpy(x_np), model_path, has_bn)

    m = onnx.load(str(model_path))
    onnx.checker.check_model(m, full_check=True)
    g = m.graph
    if m.functions or len(g.input) != 1 or len(g.output) != 1:
        raise SystemExit(f"error: {name}: expected one input, one output, no functions")
    in_name, out_name = g.input[0].name, g.output[0].name
    in_shape, out_shape = static_shape(g.input[0]), static_shape(g.output[0])
    if in_shape != list(shape):
        raise SystemExit(f"error: {name}: input shape {in_shape} != {list(shape)}")

    hist = op_histogram(g)
    print(f"{name}: {in_name}{in_shape} -> {out_name}{out_shape}, "
          f"{len(g.node)} nodes, {len(g.initializer)} initializers")
    for op, count in sorted(hist.items()):
        print(f"    {op:20s} {count}")
    unsupported = sorted(set(hist) - SUPPORTED_OPS)
    if unsupported:
        raise SystemExit(f"error: {name}: exported ops not supported by onnx2c: {unsupported}")
    if has_bn and "BatchNormalization" not in hist:
        raise SystemExit(f"error: {name}: BatchNormalization was folded away by the exporter")

    feed = {in_name: x_np}
    y1 = run_ort(model_path, feed)[0]
    y2 = run_ort(model_path, feed)[0]
    if y1.tobytes() != y2.tobytes():
        raise SystemExit(f"error: {name}: onnxruntime outputs differ between two runs")
    if list(y1.shape) != out_shape or y1.dtype != np.float32:
        raise SystemExit(f"error: {name}: onnxruntime output {y1.dtype}{list(y1.shape)}")
    with torch.no_grad():
        y_torch = model(torch.from_numpy(x_np)).numpy()
    err = float(np.max(np.abs(y_torch - y1)))
    print(f"    max |torch - onnxruntime| = {err:.3g}")
    if not np.allclose(y_torch, y1, rtol=1e-4, atol=1e-5):
        raise SystemExit(f"error: {name}: onnxruntime disagrees with torch (max abs err {err})")

    write_tensor(x_np, in_name, out_dir / "test_data_set_0" / "input_0.pb")
    write_tensor(y1, out_name, out_dir / "test_data_set_0" / "output_0.pb")
    return out_dir


def copy_example(src_dir, dst_dir):
    for rel in ("model.onnx", "test_data_set_0/input_0.pb", "test_data_set_0/output_0.pb"):
        dst = dst_dir / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes((src_dir / rel).read_bytes())


# --------------------------------------------------------------------------
# Recurrent models, written with onnx.helper (no torch)
# --------------------------------------------------------------------------

def uniform(rng, shape, bound):
    return rng.uniform(-bound, bound, size=shape).astype(np.float32)


def gru_weights(rng, prefix, inp, hidden, inits):
    """W [1][3H][I], R [1][3H][H], B [1][6H] uniform in +-1/sqrt(H), as torch initialises."""
    k = 1.0 / np.sqrt(hidden)
    for name, shape in (("W", (1, 3 * hidden, inp)), ("R", (1, 3 * hidden, hidden)),
                        ("B", (1, 6 * hidden))):
        inits.append(numpy_helper.from_array(uniform(rng, shape, k), f"{prefix}_{name}"))
    return [f"{prefix}_W", f"{prefix}_R", f"{prefix}_B"]


def gru_kws(rng):
    """Keyword spotter: 49 frames x 40 MFCCs, two stacked GRUs of 64 (linear_before_reset,
    as torch exports nn.GRU), the last hidden state into a Linear of 12 classes."""
    T, I, H, C = 49, 40, 64, 12
    inits, nodes = [], []
    nodes.append(helper.make_node("Transpose", ["input"], ["x_tbi"], perm=[1, 0, 2]))
    w1 = gru_weights(rng, "gru1", I, H, inits)
    nodes.append(helper.make_node("GRU", ["x_tbi"] + w1, ["y1", ""], hidden_size=H,
                                  linear_before_reset=1, name="gru1"))
    inits.append(numpy_helper.from_array(np.array([1], np.int64), "axis1"))
    nodes.append(helper.make_node("Squeeze", ["y1", "axis1"], ["y1s"]))
    w2 = gru_weights(rng, "gru2", H, H, inits)
    nodes.append(helper.make_node("GRU", ["y1s"] + w2, ["", "h2"], hidden_size=H,
                                  linear_before_reset=1, name="gru2"))
    inits.append(numpy_helper.from_array(np.array([1, H], np.int64), "shape_1h"))
    nodes.append(helper.make_node("Reshape", ["h2", "shape_1h"], ["h2f"]))
    inits.append(numpy_helper.from_array(uniform(rng, (C, H), 1 / np.sqrt(H)), "fc_W"))
    inits.append(numpy_helper.from_array(uniform(rng, (C,), 1 / np.sqrt(H)), "fc_B"))
    nodes.append(helper.make_node("Gemm", ["h2f", "fc_W", "fc_B"], ["output"], transB=1))
    x = rng.standard_normal((1, T, I), dtype=np.float32)
    return nodes, inits, x, [("output", [1, C])]


def conv_lstm(rng):
    """Conv + LSTM at batch 1: 40 features x 100 frames, Conv1d 40->64 (k 3, pad 1) + ReLU,
    an LSTM of 64 over the frames, its last hidden state into a Linear of 10 classes."""
    F, T, OC, H, C = 40, 100, 64, 64, 10
    inits, nodes = [], []
    kc = 1.0 / np.sqrt(F * 3)
    inits.append(numpy_helper.from_array(uniform(rng, (OC, F, 3), kc), "conv_W"))
    inits.append(numpy_helper.from_array(uniform(rng, (OC,), kc), "conv_B"))
    nodes.append(helper.make_node("Conv", ["input", "conv_W", "conv_B"], ["c"], kernel_shape=[3],
                                  pads=[1, 1], name="conv"))
    nodes.append(helper.make_node("Relu", ["c"], ["cr"]))
    nodes.append(helper.make_node("Transpose", ["cr"], ["x_tbi"], perm=[2, 0, 1]))
    k = 1.0 / np.sqrt(H)
    for name, shape in (("W", (1, 4 * H, OC)), ("R", (1, 4 * H, H)), ("B", (1, 8 * H))):
        inits.append(numpy_helper.from_array(uniform(rng, shape, k), f"lstm_{name}"))
    nodes.append(helper.make_node("LSTM", ["x_tbi", "lstm_W", "lstm_R", "lstm_B"], ["", "h", ""],
                                  hidden_size=H, name="lstm"))
    inits.append(numpy_helper.from_array(np.array([1, H], np.int64), "shape_1h"))
    nodes.append(helper.make_node("Reshape", ["h", "shape_1h"], ["hf"]))
    inits.append(numpy_helper.from_array(uniform(rng, (C, H), k), "fc_W"))
    inits.append(numpy_helper.from_array(uniform(rng, (C,), k), "fc_B"))
    nodes.append(helper.make_node("Gemm", ["hf", "fc_W", "fc_B"], ["output"], transB=1))
    x = rng.standard_normal((1, F, T), dtype=np.float32)
    return nodes, inits, x, [("output", [1, C])]


def rnn_bidir(rng):
    """Bidirectional GRU (linear_before_reset 0: the second per-step product) and LSTM with
    peepholes and initial states, constant weights, batch 2: the emitted per-direction paths."""
    T, B, I, H = 7, 2, 5, 6
    k = 1.0 / np.sqrt(H)
    inits, nodes = [], []
    for name, shape in (("gru_W", (2, 3 * H, I)), ("gru_R", (2, 3 * H, H)), ("gru_B", (2, 6 * H)),
                        ("lstm_W", (2, 4 * H, I)), ("lstm_R", (2, 4 * H, H)),
                        ("lstm_B", (2, 8 * H)), ("lstm_P", (2, 3 * H)),
                        ("lstm_h0", (2, B, H)), ("lstm_c0", (2, B, H))):
        inits.append(numpy_helper.from_array(uniform(rng, shape, k), name))
    nodes.append(helper.make_node("GRU", ["input", "gru_W", "gru_R", "gru_B"], ["gru_y", "gru_h"],
                                  hidden_size=H, direction="bidirectional", name="gru"))
    nodes.append(helper.make_node("LSTM", ["input", "lstm_W", "lstm_R", "lstm_B", "",
                                           "lstm_h0", "lstm_c0", "lstm_P"],
                                  ["lstm_y", "lstm_h", "lstm_c"], hidden_size=H,
                                  direction="bidirectional", name="lstm"))
    x = rng.standard_normal((T, B, I), dtype=np.float32)
    return nodes, inits, x, [("gru_y", [T, 2, B, H]), ("gru_h", [2, B, H]),
                             ("lstm_y", [T, 2, B, H]), ("lstm_h", [2, B, H]),
                             ("lstm_c", [2, B, H])]


def rnn_stack(rng):
    """GRU (linear_before_reset) -> reverse LSTM -> RNN over 41 steps, batch 2, I = H = 16, each
    reading the previous layer's Y: the arena's tensors alone reach the node-order bound, so
    each layer writes its Y over its X and projects its input in chunks of steps (uneven last
    chunk, and reversed for the LSTM)."""
    T, B, H = 41, 2, 16
    k = 1.0 / np.sqrt(H)
    inits, nodes = [], []
    nodes.append(helper.make_node("Relu", ["input"], ["x0"]))
    inits.append(numpy_helper.from_array(np.array([1], np.int64), "axis1"))
    x = "x0"
    for i, (op, gates, extra) in enumerate((("GRU", 3, {"linear_before_reset": 1}),
                                            ("LSTM", 4, {"direction": "reverse"}),
                                            ("RNN", 1, {}))):
        names = [f"{op.lower()}_{w}" for w in ("W", "R", "B")]
        for name, shape in zip(names, ((1, gates * H, H), (1, gates * H, H), (1, 2 * gates * H))):
            inits.append(numpy_helper.from_array(uniform(rng, shape, k), name))
        y = f"y{i}" if i < 2 else "output"
        nodes.append(helper.make_node(op, [x] + names, [y], hidden_size=H, name=op.lower(),
                                      **extra))
        if i < 2:
            nodes.append(helper.make_node("Squeeze", [y, "axis1"], [f"y{i}s"]))
            x = f"y{i}s"
    x = rng.standard_normal((T, B, H), dtype=np.float32)
    return nodes, inits, x, [("output", [T, 1, B, H])]


# name, builder, seed
HELPER_MODELS = [
    ("kws_gru", gru_kws, 21),
    ("conv_lstm64", conv_lstm, 22),
    ("rnn_bidir", rnn_bidir, 23),
    ("rnn_stack", rnn_stack, 24),
]


def generate_helper(name, builder, seed):
    out_dir = HERE / name
    model_path = out_dir / "model.onnx"
    rng = np.random.default_rng(seed)
    nodes, inits, x_np, outs = builder(rng)
    g = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("input", TensorProto.FLOAT, list(x_np.shape))],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n, shape in outs], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                          producer_name="onnx2c tests/models/gen_models.py")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx.save(m, str(model_path))
    hist = op_histogram(g)
    print(f"{name}: input{list(x_np.shape)} -> {[n for n, _ in outs]}, {len(g.node)} nodes")
    for op, count in sorted(hist.items()):
        print(f"    {op:20s} {count}")
    feed = {"input": x_np}
    y1 = run_ort(model_path, feed)
    y2 = run_ort(model_path, feed)
    if any(a.tobytes() != b.tobytes() for a, b in zip(y1, y2)):
        raise SystemExit(f"error: {name}: onnxruntime outputs differ between two runs")
    write_tensor(x_np, "input", out_dir / "test_data_set_0" / "input_0.pb")
    for i, ((n, _), y) in enumerate(zip(outs, y1)):
        write_tensor(y, n, out_dir / "test_data_set_0" / f"output_{i}.pb")
    return out_dir


def main():
    os.chdir(HERE)  # nothing below depends on the caller's working directory
    for name, builder, seed in HELPER_MODELS:
        generate_helper(name, builder, seed)
    if "--no-torch" in sys.argv[1:]:
        return 0
    if torch is None:
        raise SystemExit("error: the torch models need torch (or pass --no-torch)")
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    dirs = {}
    for name, ctor, shape, seed, has_bn, scale in MODELS:
        dirs[name] = generate(name, ctor, shape, seed, has_bn, scale)
    copy_example(dirs["mlp_b1"], EXAMPLES_MLP)
    print(f"copied mlp_b1 to {os.path.relpath(EXAMPLES_MLP, HERE)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
