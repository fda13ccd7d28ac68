#!/usr/bin/env python3
"""Generate the benchmark model set: torchvision CNNs, the MLPerf Tiny models, transformers, RNNs.

Developer-run, in its own venv (torch's wheel is large; the models are gitignored and the test
command never needs them). From the repository root:

    python3 -m venv .venv-torch
    .venv-torch/bin/pip install -r benchmarks/requirements-torch.txt
    .venv-torch/bin/python benchmarks/gen_models.py [--only NAME,...] [--out benchmarks/models]

For every model NAME it writes

    benchmarks/models/NAME/model.onnx                    weights inside, no external data file
    benchmarks/models/NAME/test_data_set_0/input_<i>.pb  seeded input (numpy default_rng)
    benchmarks/models/NAME/test_data_set_0/output_<i>.pb onnxruntime's output (the reference)
    benchmarks/models/NAME/info.json                     what it is, which exporter, opset

so that benchmarks/bench.py and the harness check correctness while they measure.

Models (batch 1, fixed shapes, eval mode, weights from torch.manual_seed per model):
- torchvision ResNet-18, MobileNetV2, MobileNetV3-small, EfficientNet-B0, SqueezeNet 1.1,
  ShuffleNetV2 x1.0 at 1x3x224x224, random weights (weights=None);
- the four MLPerf Tiny reference models, rebuilt from torch.nn with their published
  architectures: ResNet-8 (image classification, CIFAR 1x3x32x32), DS-CNN (keyword spotting,
  1x1x49x10 MFCC), MobileNetV1-0.25 (visual wake words, 1x3x96x96) and the deep autoencoder
  (anomaly detection, 640-128x4-8-128x4-640); each also as int8 QDQ (NAME_int8) through
  onnxruntime.quantization.quantize_static after its quant_pre_process: QDQ format,
  per-channel int8 weights, int8 activations, calibrated on 8 seeded random inputs;
- a GPT-style decoder (2 layers, d=128, 4 heads, seq 32, causal, token ids in, logits out), a
  ViT (4 layers, d=128, 4 heads, 8x8 patches of a 1x3x64x64 image) and a BERT-style encoder
  (2 layers, d=128, 4 heads, seq 32, token ids and an attention mask in), all from torch.nn;
- a GRU keyword spotter (2 stacked GRU 64 over 49 frames of 40 features) and a conv + LSTM
  (Conv1d 40->64 over 100 frames, LSTM 128) at batch 1.

Export: torch.onnx.export(..., dynamo=True) (opset 18); a model whose dynamo export fails is
exported with the TorchScript exporter (dynamo=False, opset 17) instead, and info.json says
which (bench.py prints it). Reference outputs: onnxruntime, CPU, one thread, graph
optimisations off (the graph as written), run twice and required to be bit-identical.
"""

import argparse
import json
import shutil
import sys
import traceback
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import numpy_helper
from torch import nn

HERE = Path(__file__).resolve().parent
DYNAMO_OPSET = 18
TORCHSCRIPT_OPSET = 17
CALIBRATION_SAMPLES = 8


# ---- MLPerf Tiny reference models ---------------------------------------------------------------

def conv_bn_relu(cin, cout, k, stride=1, padding=0, groups=1, relu=True):
    layers = [nn.Conv2d(cin, cout, k, stride, padding, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    if relu:
        layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class ResNet8Block(nn.Module):
    """MLPerf Tiny image classification ResNet-8 stack: two 3x3 convs, a 1x1 projection when the
    stride or width changes, residual add, ReLU."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.a = conv_bn_relu(cin, cout, 3, stride, 1)
        self.b = conv_bn_relu(cout, cout, 3, 1, 1, relu=False)
        self.proj = nn.Conv2d(cin, cout, 1, stride) if (stride != 1 or cin != cout) else None
        self.relu = nn.ReLU()

    def forward(self, x):
        y = self.b(self.a(x))
        return self.relu(y + (self.proj(x) if self.proj is not None else x))


class ResNet8(nn.Module):
    """CIFAR-10 32x32: conv 16, stacks of 16, 32 (stride 2), 64 (stride 2), avg pool, dense 10."""

    def __init__(self):
        super().__init__()
        self.stem = conv_bn_relu(3, 16, 3, 1, 1)
        self.stacks = nn.Sequential(ResNet8Block(16, 16, 1), ResNet8Block(16, 32, 2), ResNet8Block(32, 64, 2))
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        y = self.pool(self.stacks(self.stem(x)))
        return torch.softmax(self.fc(torch.flatten(y, 1)), dim=1)


class DSCNN(nn.Module):
    """MLPerf Tiny keyword spotting DS-CNN (small): 49x10 MFCC, conv 64 (10x4, stride 2, TF
    "same" padding: 4/5 rows, 1/1 columns), 4 depthwise-separable blocks of 64, avg pool, dense 12."""

    def __init__(self):
        super().__init__()
        self.pad = nn.ZeroPad2d((1, 1, 4, 5))
        self.stem = conv_bn_relu(1, 64, (10, 4), 2)
        blocks = []
        for _ in range(4):
            blocks += [conv_bn_relu(64, 64, 3, 1, 1, groups=64), conv_bn_relu(64, 64, 1)]
        self.blocks = nn.Sequential(*blocks)
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(64, 12)

    def forward(self, x):
        y = self.pool(self.blocks(self.stem(self.pad(x))))
        return torch.softmax(self.fc(torch.flatten(y, 1)), dim=1)


class MobileNetV1(nn.Module):
    """MLPerf Tiny visual wake words MobileNetV1 with width multiplier 0.25, 96x96 RGB, 2 classes."""

    def __init__(self, alpha=0.25, classes=2):
        super().__init__()

        def ch(c):
            return int(c * alpha)

        # (output channels, stride) of the 13 depthwise-separable blocks
        plan = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] + [(512, 1)] * 5 + [(1024, 2), (1024, 1)]
        layers = [conv_bn_relu(3, ch(32), 3, 2, 1)]
        cin = ch(32)
        for cout, stride in plan:
            layers += [conv_bn_relu(cin, cin, 3, stride, 1, groups=cin), conv_bn_relu(cin, ch(cout), 1)]
            cin = ch(cout)
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d(3)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        y = self.pool(self.features(x))
        return torch.softmax(self.fc(torch.flatten(y, 1)), dim=1)


class DeepAutoencoder(nn.Module):
    """MLPerf Tiny anomaly detection: 640 -> 4x (dense 128, BN, ReLU) -> dense 8 (BN, ReLU) ->
    4x (dense 128, BN, ReLU) -> dense 640."""

    def __init__(self):
        super().__init__()
        widths = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128]
        layers = []
        for a, b in zip(widths, widths[1:]):
            layers += [nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU()]
        layers.append(nn.Linear(128, 640))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


# ---- transformers -------------------------------------------------------------------------------

class SelfAttention(nn.Module):
    """Multi-head self-attention written out (Linear q/k/v, MatMul, Softmax, MatMul), as GPT and
    BERT code does; `bias` is added to the scores (a causal or padding mask), or None."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads, self.dh = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x, bias=None):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q = q.reshape(b, t, self.heads, self.dh).transpose(1, 2)
        k = k.reshape(b, t, self.heads, self.dh).transpose(1, 2)
        v = v.reshape(b, t, self.heads, self.dh).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(2, 3)) * (1.0 / self.dh ** 0.5)
        if bias is not None:
            scores = scores + bias
        y = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    """Transformer block: pre-LN (GPT, ViT) or post-LN (BERT), MLP with GELU."""

    def __init__(self, d, heads, ff, pre_ln, gelu_approx="none"):
        super().__init__()
        self.pre_ln = pre_ln
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = SelfAttention(d, heads)
        self.mlp = nn.Sequential(nn.Linear(d, ff), nn.GELU(approximate=gelu_approx), nn.Linear(ff, d))

    def forward(self, x, bias=None):
        if self.pre_ln:
            x = x + self.attn(self.ln1(x), bias)
            return x + self.mlp(self.ln2(x))
        x = self.ln1(x + self.attn(x, bias))
        return self.ln2(x + self.mlp(x))


class GPTDecoder(nn.Module):
    """GPT-2-style: token + position embeddings, causal pre-LN blocks, final LN, tied LM head."""

    def __init__(self, vocab=512, d=128, heads=4, layers=2, seq=32):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, heads, 4 * d, True, "tanh") for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        causal = torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1)
        self.register_buffer("causal", causal.reshape(1, 1, seq, seq))

    def forward(self, ids):
        x = self.tok(ids) + self.pos
        for blk in self.blocks:
            x = blk(x, self.causal)
        return torch.matmul(self.ln(x), self.tok.weight.t())


class ViT(nn.Module):
    """ViT: 8x8 patches of 64x64 (64 tokens + CLS), 4 pre-LN blocks of d=128, head of 10 classes."""

    def __init__(self, d=128, heads=4, layers=4, image=64, patch=8, classes=10):
        super().__init__()
        n = (image // patch) ** 2
        self.embed = nn.Conv2d(3, d, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, heads, 2 * d, True) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, classes)

    def forward(self, img):
        x = self.embed(img).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x)[:, 0])


class BERTEncoder(nn.Module):
    """BERT-style: token + position + segment embeddings, LN, post-LN blocks with erf GELU; the
    attention mask (1 keep, 0 padding) becomes (1 - mask) * -10000 added to the scores."""

    def __init__(self, vocab=1024, d=128, heads=4, layers=2, seq=32):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(1, seq, d) * 0.02)
        self.seg = nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.ln = nn.LayerNorm(d)
        self.blocks = nn.ModuleList(Block(d, heads, 4 * d, False) for _ in range(layers))

    def forward(self, ids, mask):
        bias = (1.0 - mask.to(torch.float32))[:, None, None, :] * -10000.0
        x = self.ln(self.tok(ids) + self.pos + self.seg)
        for blk in self.blocks:
            x = blk(x, bias)
        return x


# ---- recurrent ----------------------------------------------------------------------------------

class GRUKWS(nn.Module):
    """Keyword spotting GRU: 49 frames of 40 features, 2 stacked GRU 64, dense 12 on the last step."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(40, 64, num_layers=2, batch_first=True)
        self.fc = nn.Linear(64, 12)

    def forward(self, x):
        y, _ = self.gru(x)
        return self.fc(y[:, -1])


class ConvLSTM(nn.Module):
    """Conv1d front end (40 features -> 64, kernel 3, ReLU) over 100 frames, LSTM 128, dense 10
    on the last step."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(40, 64, 3, padding=1)
        self.lstm = nn.LSTM(64, 128, batch_first=True)
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        y = torch.relu(self.conv(x)).transpose(1, 2)
        y, _ = self.lstm(y)
        return self.fc(y[:, -1])


# ---- the set ------------------------------------------------------------------------------------

def torchvision_model(name):
    import torchvision

    return getattr(torchvision.models, name)(weights=None)


def image(shape):
    return lambda rng: [rng.standard_normal(shape, dtype=np.float32)]


def tokens(vocab, seq):
    return lambda rng: [rng.integers(0, vocab, (1, seq), dtype=np.int64)]


def bert_inputs(rng):
    mask = np.ones((1, 32), np.int64)
    mask[:, 24:] = 0  # the last 8 positions are padding
    return [rng.integers(0, 1024, (1, 32), dtype=np.int64), mask]


# name: (description, module factory, input maker, graph input names, quantize to int8 QDQ too)
MODELS = {
    "resnet18": ("torchvision ResNet-18 224x224", lambda: torchvision_model("resnet18"), image((1, 3, 224, 224)), ["input"], False),
    "mobilenet_v2": ("torchvision MobileNetV2 224x224", lambda: torchvision_model("mobilenet_v2"), image((1, 3, 224, 224)), ["input"], False),
    "mobilenet_v3_small": ("torchvision MobileNetV3-small 224x224", lambda: torchvision_model("mobilenet_v3_small"), image((1, 3, 224, 224)), ["input"], False),
    "efficientnet_b0": ("torchvision EfficientNet-B0 224x224", lambda: torchvision_model("efficientnet_b0"), image((1, 3, 224, 224)), ["input"], False),
    "squeezenet1_1": ("torchvision SqueezeNet 1.1 224x224", lambda: torchvision_model("squeezenet1_1"), image((1, 3, 224, 224)), ["input"], False),
    "shufflenet_v2_x1_0": ("torchvision ShuffleNetV2 x1.0 224x224", lambda: torchvision_model("shufflenet_v2_x1_0"), image((1, 3, 224, 224)), ["input"], False),
    "tiny_resnet8": ("MLPerf Tiny image classification ResNet-8 (CIFAR 32x32)", ResNet8, image((1, 3, 32, 32)), ["input"], True),
    "tiny_dscnn_kws": ("MLPerf Tiny keyword spotting DS-CNN (1x1x49x10)", DSCNN, image((1, 1, 49, 10)), ["input"], True),
    "tiny_mobilenetv1_vww": ("MLPerf Tiny visual wake words MobileNetV1-0.25 (96x96)", MobileNetV1, image((1, 3, 96, 96)), ["input"], True),
    "tiny_autoencoder": ("MLPerf Tiny anomaly detection deep autoencoder (640)", DeepAutoencoder, image((1, 640)), ["input"], True),
    "gpt_decoder": ("GPT-style decoder: 2 layers, d=128, 4 heads, seq 32, causal", GPTDecoder, tokens(512, 32), ["ids"], False),
    "vit": ("ViT: 4 layers, d=128, 4 heads, 64x64 image, 8x8 patches", ViT, image((1, 3, 64, 64)), ["image"], False),
    "bert_encoder": ("BERT-style encoder: 2 layers, d=128, 4 heads, seq 32, attention mask", BERTEncoder, bert_inputs, ["ids", "mask"], False),
    "gru_kws": ("GRU keyword spotter: 2x GRU 64 over 49x40", GRUKWS, image((1, 49, 40)), ["input"], False),
    "conv_lstm": ("Conv1d + LSTM 128 over 100 frames of 40, batch 1", ConvLSTM, image((1, 40, 100)), ["input"], False),
}


# ---- export and reference -----------------------------------------------------------------------

def export(module, args, names, path):
    """dynamo=True first, TorchScript on failure; returns (exporter, opset, dynamo error or None)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prog = torch.onnx.export(module, tuple(args), dynamo=True, input_names=names,
                                     opset_version=DYNAMO_OPSET, verbose=False)
        # The proto, saved by onnx with every tensor inline (no external data file).
        onnx.save_model(prog.model_proto, str(path), save_as_external_data=False)
        onnx.checker.check_model(str(path))
        return "dynamo", DYNAMO_OPSET, None
    except Exception as e:  # noqa: BLE001 - any failure falls back to the other exporter
        why = f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, tuple(args), str(path), dynamo=False, input_names=names,
                          opset_version=TORCHSCRIPT_OPSET, do_constant_folding=True)
    onnx.checker.check_model(str(path))
    return "torchscript", TORCHSCRIPT_OPSET, why


def graph_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def reference(path, feeds):
    """onnxruntime's outputs on the graph as written (no optimisation), checked reproducible."""
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    a = sess.run(None, feeds)
    b = sess.run(None, feeds)
    for x, y in zip(a, b):
        if x.tobytes() != y.tobytes():
            raise RuntimeError(f"{path}: onnxruntime is not reproducible")
    return [o.name for o in sess.get_outputs()], a


def write_test_data(model_dir, model_path, arrays):
    model = onnx.load(str(model_path))
    names = graph_inputs(model)
    if len(names) != len(arrays):
        raise RuntimeError(f"{model_path}: {len(names)} graph inputs, {len(arrays)} arrays")
    feeds = dict(zip(names, arrays))
    out_names, outs = reference(model_path, feeds)
    data = model_dir / "test_data_set_0"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    for i, (n, a) in enumerate(feeds.items()):
        (data / f"input_{i}.pb").write_bytes(numpy_helper.from_array(a, n).SerializeToString())
    for i, (n, a) in enumerate(zip(out_names, outs)):
        (data / f"output_{i}.pb").write_bytes(numpy_helper.from_array(a, n).SerializeToString())
    return feeds


class SeededCalibration:
    """quantize_static's calibration reader: CALIBRATION_SAMPLES seeded random inputs."""

    def __init__(self, names, make_inputs, seed):
        rng = np.random.default_rng(seed)
        self.batches = iter([dict(zip(names, make_inputs(rng))) for _ in range(CALIBRATION_SAMPLES)])

    def get_next(self):
        return next(self.batches, None)

    def rewind(self):
        raise NotImplementedError


def quantize(float_path, qdq_path, names, make_inputs, seed):
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(SeededCalibration, CalibrationDataReader):
        pass

    # The pre-processing onnxruntime recommends (shape inference, graph clean-up) first.
    prep = qdq_path.with_name("prep.onnx")
    quant_pre_process(str(float_path), str(prep))
    quantize_static(str(prep), str(qdq_path), Reader(names, make_inputs, seed + 1000),
                    quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8)
    prep.unlink()
    model = onnx.load(str(qdq_path))
    onnx.save_model(model, str(qdq_path), save_as_external_data=False)
    onnx.checker.check_model(str(qdq_path))


def op_histogram(path):
    counts = {}
    for n in onnx.load(str(path), load_external_data=False).graph.node:
        counts[n.op_type] = counts.get(n.op_type, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def write_info(model_dir, info):
    (model_dir / "info.json").write_text(json.dumps(info, indent=1) + "\n")


def generate(name, seed, out_root):
    desc, factory, make_inputs, names, qdq = MODELS[name]
    torch.manual_seed(seed)
    module = factory().eval()
    rng = np.random.default_rng(seed)
    arrays = make_inputs(rng)
    model_dir = out_root / name
    model_dir.mkdir(parents=True, exist_ok=True)
    path = model_dir / "model.onnx"
    exporter, opset, why = export(module, [torch.from_numpy(a) for a in arrays], names, path)
    model = onnx.load(str(path))
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer):
        raise RuntimeError(f"{path}: has external data")
    feeds = write_test_data(model_dir, path, arrays)
    info = {"description": desc, "exporter": exporter, "opset": opset, "seed": seed,
            "inputs": {k: list(v.shape) for k, v in feeds.items()}, "ops": op_histogram(path)}
    if why:
        info["dynamo_error"] = why
    write_info(model_dir, info)
    print(f"{name}: {exporter} opset {opset}, {path.stat().st_size / 1e6:.1f} MB"
          + (f" (dynamo failed: {why})" if why else ""), flush=True)
    if not qdq:
        return
    qname = name + "_int8"
    qdir = out_root / qname
    qdir.mkdir(parents=True, exist_ok=True)
    qpath = qdir / "model.onnx"
    quantize(path, qpath, list(feeds), make_inputs, seed)
    write_test_data(qdir, qpath, arrays)
    write_info(qdir, {"description": desc + ", int8 QDQ (quantize_static, per-channel)",
                      "exporter": exporter + "+qdq", "opset": opset, "seed": seed,
                      "inputs": {k: list(v.shape) for k, v in feeds.items()}, "ops": op_histogram(qpath)})
    print(f"{qname}: quantize_static QDQ per-channel, {qpath.stat().st_size / 1e6:.1f} MB", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(HERE / "models"), help="output folder (default: benchmarks/models)")
    ap.add_argument("--only", help="comma-separated model names (default: all): " + ", ".join(MODELS))
    args = ap.parse_args()
    names = list(MODELS) if not args.only else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        sys.exit(f"gen_models: unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    torch.set_num_threads(1)
    out_root = Path(args.out)
    failed = []
    for i, name in enumerate(MODELS):
        if name not in names:
            continue
        try:
            generate(name, seed=i, out_root=out_root)
        except Exception:  # noqa: BLE001 - report and go on with the other models
            traceback.print_exc()
            failed.append(name)
    if failed:
        print(f"gen_models: FAILED: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
