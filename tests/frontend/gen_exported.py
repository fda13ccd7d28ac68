#!/usr/bin/env python3
"""Export PyTorch models with both exporters, unchanged, as frontend (fold + fuse) tests.

Developer-run only; the results are committed, so building and testing onnx2c never needs
PyTorch. From the repository root (the venv of tests/models/requirements-dev.txt):

    .venv-torch/bin/python tests/frontend/gen_exported.py [NAME...]

NAME...: regenerate only those models.

Pinned: torch 2.15.0, torchvision 0.29.2, onnx 1.23.2, numpy 2.4.6, onnxruntime 1.32.0, onnxscript 0.7.2.
Writes tests/frontend/models/NAME/ (layout in frontend_common.py; paths relative to this file).

Exporters, exactly as a user would call them unless noted:
  TorchScript  torch.onnx.export(..., dynamo=False, opset_version=N, do_constant_folding=...)
  dynamo       torch.onnx.export(..., dynamo=True, optimize=False|True, external_data=False)
               The public API always runs onnxscript's version converter (to opset 20 by
               default), which starts by inlining every model-local function, so its output
               never has functions, even with optimize=False.
  dynamo_raw   torch.onnx._internal.exporter._core.export(..., optimize=False,
               opset_version=None): the same exporter without the version conversion, i.e. the
               graph as torchlib traced it (opset 18, model-local functions for the torchlib ops
               that are onnxscript functions rather than trace-only, e.g. aten_hardtanh,
               aten_hardswish; dead nodes kept). Internal API of torch 2.15; checked below.

The only change made to an exported model: the node metadata key pkg.torch.onnx.stack_trace
is deleted (it holds absolute paths of this script and of site-packages, so the bytes would
depend on the checkout). All other metadata is kept, except in the exports marked lean
(("dynamo", optimize, True): the torchvision models and the SDPA block), whose node metadata
is deleted entirely to keep the files below MAX_FILE_BYTES.

Reference outputs: onnxruntime on the exported model (CPU, one thread, graph optimisations
off, run twice and bit-identical), checked against PyTorch eager (allclose rtol 1e-4,
atol 1e-5). Weights: torch.manual_seed(seed) per model family (BatchNorm statistics,
LayerNorm affine parameters and biases randomised from torch.Generator, so that no parameter
is trivially 0 or 1); inputs: numpy.random.default_rng(seed).
"""

import inspect
import io
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from torch import nn

import frontend_common as fc

# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------


class MLP(nn.Module):
    def __init__(self, k=784, h=128, n=10, act=None):
        super().__init__()
        self.fc1 = nn.Linear(k, h)
        self.act = act if act is not None else nn.ReLU()
        self.fc2 = nn.Linear(h, n)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class ConvBnRelu6(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu6 = nn.ReLU6()

    def forward(self, x):
        return self.relu6(self.bn(self.conv(x)))


class Encoder(nn.Module):
    """TransformerEncoderLayer behind a forward(x) of one argument.

    Calling the layer directly fails in the TorchScript exporter of torch 2.15: it fills in the
    default arguments of forward() as traced values, and scaled_dot_product_attention then
    gets a Tensor for is_causal ("argument 'is_causal' must be bool, not Tensor").
    """

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(
            d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, activation="gelu",
            batch_first=True)

    def forward(self, x):
        return self.layer(x)


class SdpaBlock(nn.Module):
    """A pre-norm GPT block written the way nanoGPT writes it: one packed q/k/v Linear split
    with torch.split, F.scaled_dot_product_attention(is_causal=True), a GELU MLP."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def heads_first(self, t):
        b, n, c = t.shape
        return t.view(b, n, self.heads, c // self.heads).transpose(1, 2)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        y = F.scaled_dot_product_attention(self.heads_first(q), self.heads_first(k),
                                           self.heads_first(v), is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, n, c))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def mobilenet_v2_small():
    """torchvision's MobileNetV2 at width 0.1 with one or two blocks per stage (the full
    repeat list would make the optimize=False file larger than MAX_FILE_BYTES); stages of
    two blocks keep the residual Add."""
    from torchvision.models import mobilenet_v2

    setting = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 2, 2], [6, 64, 1, 2], [6, 96, 2, 1],
               [6, 160, 1, 2], [6, 320, 1, 1]]
    return mobilenet_v2(width_mult=0.1, num_classes=10, inverted_residual_setting=setting)


def mobilenet_v3_small():
    """torchvision's mobilenet_v3_small configuration at width 0.25, its first 8 blocks (6 with
    squeeze-excitation), a 128-wide classifier hidden layer."""
    from torchvision.models.mobilenetv3 import MobileNetV3, _mobilenet_v3_conf

    setting, _ = _mobilenet_v3_conf("mobilenet_v3_small", width_mult=0.25)
    model = MobileNetV3(setting[:8], last_channel=128, num_classes=10)
    # torchvision initialises the classifier with N(0, 0.01) and zero bias, which makes the
    # outputs ~1e-3: nn.Linear's own initialisation instead, so they are of order 0.1-1.
    for m in model.classifier.modules():
        if isinstance(m, nn.Linear):
            m.reset_parameters()
    return model


def shufflenet_v2_small():
    """torchvision's ShuffleNetV2 (channel shuffle, torch.chunk) with reduced stage widths."""
    from torchvision.models.shufflenetv2 import ShuffleNetV2

    return ShuffleNetV2([2, 2, 2], [16, 24, 48, 96, 256], num_classes=10)


def randomize(model, seed):
    """Non-trivial BatchNorm statistics, LayerNorm affine parameters and zero-initialised biases."""
    gen = torch.Generator().manual_seed(seed + 1000)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                n = m.num_features
                m.weight.copy_(torch.rand(n, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(n, generator=gen) * 0.2)
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.2)
                m.running_var.copy_(torch.rand(n, generator=gen) * 1.5 + 0.25)
            elif isinstance(m, nn.LayerNorm):
                m.weight.copy_(torch.rand(m.weight.shape, generator=gen) + 0.5)
                m.bias.copy_(torch.randn(m.bias.shape, generator=gen) * 0.2)
            elif isinstance(m, nn.MultiheadAttention):
                m.in_proj_bias.copy_(torch.randn(m.in_proj_bias.shape, generator=gen) * 0.2)
                m.out_proj.bias.copy_(torch.randn(m.out_proj.bias.shape, generator=gen) * 0.2)
    return model


def build(ctor, seed):
    torch.manual_seed(seed)
    return randomize(ctor(), seed).eval()


# --------------------------------------------------------------------------
# Exporters
# --------------------------------------------------------------------------

IO_NAMES = dict(input_names=["input"], output_names=["output"])


def strip_stack_traces(m, all_metadata=False):
    """Delete the stack traces (absolute paths); all_metadata: every node's metadata_props
    (namespace, class hierarchy, fx node: a third of a torchvision model's bytes)."""

    def nodes(ns):
        for n in ns:
            keep = [p for p in n.metadata_props
                    if p.key != "pkg.torch.onnx.stack_trace" and not all_metadata]
            del n.metadata_props[:]
            n.metadata_props.extend(keep)
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    nodes(a.g.node)
                for g in a.graphs:
                    nodes(g.node)

    nodes(m.graph.node)
    for f in m.functions:
        nodes(f.node)
    return m


def export_torchscript(model, x, opset, fold=True):
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecation notice of the TorchScript exporter
        torch.onnx.export(model, (x,), buf, dynamo=False, opset_version=opset,
                          do_constant_folding=fold, dynamic_axes=None, export_params=True,
                          keep_initializers_as_inputs=False,
                          training=torch.onnx.TrainingMode.EVAL, **IO_NAMES)
    return onnx.load_from_string(buf.getvalue())


def export_dynamo(model, x, optimize, lean=False):
    prog = torch.onnx.export(model, (x,), dynamo=True, optimize=optimize, external_data=False,
                             verbose=False, **IO_NAMES)
    return strip_stack_traces(prog.model_proto, all_metadata=lean)


def export_dynamo_raw(model, x):
    from torch.onnx._internal.exporter import _core, _registration

    params = inspect.signature(_core.export).parameters
    for p in ("registry", "optimize", "opset_version", "input_names", "output_names"):
        if p not in params:
            raise SystemExit(f"error: torch {torch.__version__}: _core.export has no '{p}'; "
                             "the dynamo_raw models need torch 2.15")
    registry = _registration.ONNXRegistry.from_torchlib()
    prog = _core.export(model, (x,), registry=registry, optimize=False, opset_version=None,
                        verbose=False, **IO_NAMES)
    return strip_stack_traces(prog.model_proto)


# --------------------------------------------------------------------------
# What the frontend should produce
# --------------------------------------------------------------------------

MLP_EXPECT = {"ops_after": {"Gemm": 2},
              "note": "two Gemm kernels, bias and ReLU inside the first"}

TRANSFORMER_EXPECT = {
    # The exact schedule (views are free and ignored): a regression that leaves one more
    # kernel (an unfused bias Add, a Transpose not absorbed, an unfolded Cast) fails.
    "ops_after": {"Gemm": 4, "MatMul": 2, "Softmax": 1, "LayerNormalization": 2, "Add": 2,
                  "Mul": 2, "Transpose": 6, "Gather": 3},
    "note": "no shape arithmetic left: every Shape/Slice/Concat/Cast/Sqrt/Mod chain folded to "
            "constants, Reshape/Squeeze/Unsqueeze (and Gather of a constant index on axis 0) "
            "as views, the 4 linear layers as Gemm (bias fused, GELU fused into linear1), "
            "attention as 2 batched MatMul + Softmax, 2 LayerNormalization; besides them stay "
            "the 2 residual Adds, the 2 Muls scaling q and k, 3 Gathers splitting the packed "
            "q/k/v and 6 Transposes of the head layout (the 2 that move only the batch axis "
            "of size 1 are views)",
}


def expect_act(act):
    return {"ops_after": {"Gemm": 2},
            "note": f"two Gemm kernels, bias and {act} inside the first"}


CONV_EXPECT = {"ops_after": {"Conv": 1},
               "note": "BatchNormalization folded into the Conv weights/bias, Clip(0, 6) "
                       "fused as the Conv epilogue"}

# torchvision models and the SDPA block: optimize=False leaves every BatchNormalization (with
# CastLike'd Expand/Shape chains around it) and, for torch.split/chunk, SplitToSequence +
# SequenceAt; optimize=True folds those in onnxscript. Both must come out the same.
MOBILENET_EXPECT = {
    "ops_after": {"Conv": 31, "ReduceMean": 1, "Gemm": 1},
    "note": "every BatchNormalization folded into its Conv, every ReLU6 (Clip) and residual Add "
            "fused as a Conv epilogue; global average pool, the classifier as one Gemm",
}
MOBILENET_V3_EXPECT = {
    "ops_after": {"Conv": 37, "ReduceMean": 7, "Mul": 6, "Gemm": 2},
    "note": "BatchNormalization folded, HardSwish/ReLU and the residual Adds fused as Conv "
            "epilogues, HardSigmoid into the squeeze-excitation's second Conv and HardSwish "
            "into the first classifier Gemm; the 6 SE channel-scaling Muls and the 7 "
            "ReduceMean pools (6 SE, 1 global) stay",
}
SHUFFLENET_EXPECT = {
    "ops_after": {"Conv": 26, "MaxPool": 1, "ReduceMean": 1, "Gemm": 1, "Concat": 6,
                  "Transpose": 6, "Split": 3},
    "note": "BatchNormalization folded, ReLU fused into its Conv; the channel shuffle stays "
            "as Reshape (view) + Transpose, torch.chunk as Split (from SplitToSequence + "
            "SequenceAt with optimize=False), the concats as Concat",
}
SDPA_EXPECT = {
    "ops_after": {"Gemm": 4, "MatMul": 2, "Softmax": 1, "LayerNormalization": 2, "Add": 3,
                  "Mul": 2, "Transpose": 5, "Split": 1},
    "note": "scaled_dot_product_attention as 2 batched MatMul + Softmax with the 2 q/k scaling "
            "Muls and the causal mask Add (the Trilu/Where/Equal mask chain folded to a "
            "constant with optimize=False); the 4 Linear layers as Gemm (bias fused, GELU fused "
            "into fc1), the packed q/k/v split as one Split, 5 head Transposes; the 2 residual "
            "Adds stay (not fused into the Gemm on the [8,32] view, yet)",
}

# name, constructor, input shape, seed, input scale, exporter, expected
# exporter: ("torchscript", opset, do_constant_folding) | ("dynamo", optimize) | ("dynamo_raw",)
MLP_SEED = 1
CASES = [
    ("mlp_dynamo", MLP, (1, 784), MLP_SEED, 1.0, ("dynamo", False), MLP_EXPECT),
    ("mlp_dynamo_opt", MLP, (1, 784), MLP_SEED, 1.0, ("dynamo", True), MLP_EXPECT),
    ("mlp_dynamo_3d", MLP, (2, 5, 784), MLP_SEED, 1.0, ("dynamo", False), MLP_EXPECT),
    ("mlp_torchscript", MLP, (1, 784), MLP_SEED, 1.0, ("torchscript", 17, True), MLP_EXPECT),
    ("mlp_torchscript_3d", MLP, (2, 5, 784), MLP_SEED, 1.0, ("torchscript", 17, True), MLP_EXPECT),
    ("mlp_torchscript_old", MLP, (1, 784), MLP_SEED, 1.0, ("torchscript", 7, False), MLP_EXPECT),
    ("mlp_torchscript_3d_old", MLP, (2, 5, 784), MLP_SEED, 1.0, ("torchscript", 7, False), MLP_EXPECT),
    ("mlp_gelu_tanh", lambda: MLP(32, 64, 10, nn.GELU(approximate="tanh")), (2, 32), 2, 4.0,
     ("torchscript", 20, True), expect_act("Gelu(tanh)")),
    ("mlp_gelu_tanh_opset17", lambda: MLP(32, 64, 10, nn.GELU(approximate="tanh")), (2, 32), 2, 4.0,
     ("torchscript", 17, True), expect_act("the decomposed tanh-GELU (recognised as Gelu)")),
    ("mlp_hardswish", lambda: MLP(32, 64, 10, nn.Hardswish()), (2, 32), 3, 8.0,
     ("torchscript", 17, True), expect_act("HardSwish")),
    ("mlp_hardswish_dynamo_raw", lambda: MLP(32, 64, 10, nn.Hardswish()), (2, 32), 3, 8.0,
     ("dynamo_raw",), expect_act("HardSwish (model-local function aten_hardswish inlined)")),
    ("conv_bn_relu6", ConvBnRelu6, (1, 3, 16, 16), 4, 4.0, ("torchscript", 17, False), CONV_EXPECT),
    ("conv_bn_relu6_dynamo", ConvBnRelu6, (1, 3, 16, 16), 4, 4.0, ("dynamo", False), CONV_EXPECT),
    ("conv_bn_relu6_dynamo_raw", ConvBnRelu6, (1, 3, 16, 16), 4, 4.0, ("dynamo_raw",), CONV_EXPECT),
    ("transformer_layer", Encoder, (1, 8, 32), 5, 1.0, ("torchscript", 17, True), TRANSFORMER_EXPECT),
    ("transformer_layer_dynamo", Encoder, (1, 8, 32), 5, 1.0, ("dynamo", False), TRANSFORMER_EXPECT),
    ("transformer_layer_dynamo_raw", Encoder, (1, 8, 32), 5, 1.0, ("dynamo_raw",), TRANSFORMER_EXPECT),
    ("tv_mobilenet_v2", mobilenet_v2_small, (1, 3, 64, 64), 6, 1.0, ("dynamo", False, True),
     MOBILENET_EXPECT),
    ("tv_mobilenet_v2_opt", mobilenet_v2_small, (1, 3, 64, 64), 6, 1.0, ("dynamo", True, True),
     MOBILENET_EXPECT),
    ("tv_mobilenet_v3", mobilenet_v3_small, (1, 3, 64, 64), 9, 1.0, ("dynamo", False, True),
     MOBILENET_V3_EXPECT),
    ("tv_mobilenet_v3_opt", mobilenet_v3_small, (1, 3, 64, 64), 9, 1.0, ("dynamo", True, True),
     MOBILENET_V3_EXPECT),
    ("tv_shufflenet_v2", shufflenet_v2_small, (1, 3, 64, 64), 7, 1.0, ("dynamo", False, True),
     SHUFFLENET_EXPECT),
    ("tv_shufflenet_v2_opt", shufflenet_v2_small, (1, 3, 64, 64), 7, 1.0, ("dynamo", True, True),
     SHUFFLENET_EXPECT),
    ("sdpa_block_dynamo", SdpaBlock, (1, 8, 32), 8, 1.0, ("dynamo", False, True), SDPA_EXPECT),
    ("sdpa_block_dynamo_opt", SdpaBlock, (1, 8, 32), 8, 1.0, ("dynamo", True, True), SDPA_EXPECT),
]


def export(exporter, model, x):
    kind = exporter[0]
    if kind == "torchscript":
        return export_torchscript(model, x, exporter[1], exporter[2])
    if kind == "dynamo":
        return export_dynamo(model, x, *exporter[1:])
    if kind == "dynamo_raw":
        return export_dynamo_raw(model, x)
    raise ValueError(kind)


def exporter_text(exporter):
    kind = exporter[0]
    if kind == "torchscript":
        return f"TorchScript, opset {exporter[1]}, do_constant_folding={exporter[2]}"
    if kind == "dynamo":
        lean = ", node metadata deleted" if exporter[2:] == (True,) else ""
        return f"dynamo, optimize={exporter[1]}{lean}"
    return "dynamo raw (_core.export, optimize=False, no version conversion)"


def generate(name, ctor, shape, seed, scale, exporter, expected):
    model = build(ctor, seed)
    rng = np.random.default_rng(seed)
    x_np = rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)
    m = export(exporter, model, torch.from_numpy(x_np))
    in_name = fc.graph_inputs(m.graph)[0].name
    exp = dict(expected)
    exp["exporter"] = f"torch {torch.__version__.split('+')[0]}: {exporter_text(exporter)}"
    # The raw dynamo output declares shape [0] in value_info for the unused statistics outputs
    # of BatchNormalization (Cast nodes whose inferred shape is [8]): the full checker rejects
    # that, so those models get the structural check only. The files are kept as exported.
    check = "basic" if exporter[0] == "dynamo_raw" else True
    y = fc.write_case(name, m, {in_name: x_np}, exp, check=check)[0]
    with torch.no_grad():
        y_torch = model(torch.from_numpy(x_np)).numpy()
    err = float(np.max(np.abs(y_torch - y)))
    if not np.allclose(y_torch, y, rtol=1e-4, atol=1e-5):
        raise SystemExit(f"error: {name}: onnxruntime disagrees with torch (max abs err {err})")
    fc.print_summary(name, m)
    print(f"    {exp['exporter']}; max |torch - onnxruntime| = {err:.3g}")
    return model, x_np


def main():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    # The fast path of nn.MultiheadAttention is for inference without autograd; the exporters
    # trace the regular path anyway, but make sure of it.
    torch.backends.mha.set_fastpath_enabled(False)
    os.chdir(fc.HERE)  # nothing below depends on the caller's working directory
    only = set(sys.argv[1:])  # NAME...: regenerate only these
    for case in CASES:
        if only and case[0] not in only:
            continue
        model, x_np = generate(*case)
        name = case[0]
        if name.startswith("conv_bn_relu6"):
            with torch.no_grad():
                pre = model.bn(model.conv(torch.from_numpy(x_np))).numpy()
            print(f"    pre-ReLU6: {np.mean(pre < 0):.1%} below 0, {np.mean(pre > 6):.1%} above 6")
        if name.startswith("mlp_hardswish"):
            with torch.no_grad():
                pre = model.fc1(torch.from_numpy(x_np)).numpy()
            print(f"    pre-HardSwish: {np.mean(pre < -3):.1%} below -3, {np.mean(pre > 3):.1%} above 3")
    return 0


if __name__ == "__main__":
    sys.exit(main())
