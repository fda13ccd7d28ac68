#!/usr/bin/env python3
"""The channels-last pass (compiler/layout_nhwc.c) on small hand-built graphs.

    run_nhwc_test.py ONNX2C WORK_DIR

Each graph is built here with onnx.helper (seeded weights), compiled with --layout=nchw and
--layout=nhwc, and run on the same input. Checks, per graph:
  - the nhwc outputs equal the nchw outputs bit for bit (the layout never changes a result),
    and both match onnxruntime (the harness: rtol 1e-3, atol 1e-5);
  - --report-json of the nhwc build has the expected Transpose and NhwcConv counts, expand
    convs fused into depthwise convs, stem convs into MaxPools and Concat inputs written in
    their slices of its output (the
    transposes only where a region is entered and left; inverse pairs cancelled, those of a
    1x1 map or one channel became free Reshapes), every mean over H, W as
    NhwcGlobalAveragePool, and names the channels-last nodes;
  - the nchw build has no NhwcConv and no Transpose but the model's own;
  - --layout=auto (the default) goes channels-last exactly for the graphs marked `auto` (those
    with a depthwise conv; no conv here reaches the dense threshold of 4 MFLOP);
  - --emit-onnx of the nhwc graph (NhwcConv written as Conv between transposes) passes the
    ONNX checker and runs in onnxruntime with the same results."""
import json
import os
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

F32 = TensorProto.FLOAT
CC = os.environ.get("CC", "cc")


class G:
    """A graph under construction: nodes, initializers, one input."""

    def __init__(self, seed, shape):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.k = [], [], 0
        self.shape = shape
        self.x = "x"

    def name(self, base):
        self.k += 1
        return f"{base}{self.k}"

    def const(self, a):
        n = self.name("c")
        self.inits.append(numpy_helper.from_array(np.asarray(a, dtype=np.float32), name=n))
        return n

    def op(self, op, ins, nout=1, **attrs):
        outs = [self.name("t") for _ in range(nout)]
        self.nodes.append(helper.make_node(op, ins, outs, name=self.name(op), **attrs))
        return outs[0] if nout == 1 else outs

    def conv(self, x, cin, cout, k=1, group=1, **attrs):
        w = self.rng.standard_normal((cout, cin // group, k, k)).astype(np.float32) * 0.3
        b = self.rng.standard_normal(cout).astype(np.float32) * 0.1
        if "auto_pad" not in attrs:
            attrs["pads"] = [k // 2 * attrs.get("dilations", [1])[0]] * 4
        return self.op("Conv", [x, self.const(w), self.const(b)], group=group, **attrs)

    def model(self, outputs):
        outs = [helper.make_tensor_value_info(o, F32, None) for o in outputs]
        g = helper.make_graph(self.nodes, "g", [helper.make_tensor_value_info(
            "x", F32, self.shape)], outs, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        return m


def conv_chain():
    """Conv -> Relu -> Conv + residual Add of the input -> Clip: one region; the residual's
    transpose is its own, made just before its conv (its twin is then not alive in between)."""
    g = G(1, [1, 8, 6, 5])
    a = g.op("Relu", [g.conv("x", 8, 16)])
    b = g.op("Add", [g.conv(a, 16, 8), "x"])
    return g.model([g.op("Clip", [b, g.const(0.0), g.const(6.0)])]), 3, 2


def squeeze_excite():
    """Conv, GlobalAveragePool, two 1x1 convs, Sigmoid, Mul back onto the map, Conv."""
    g = G(2, [1, 8, 7, 7])
    y = g.op("Relu", [g.conv("x", 8, 16)])
    s = g.op("GlobalAveragePool", [y])
    s = g.op("Sigmoid", [g.conv(g.op("Relu", [g.conv(s, 16, 4)]), 4, 16)])
    return g.model([g.conv(g.op("Mul", [y, s]), 16, 8)]), 2, 4


def squeeze_excite_mean():
    """The squeeze-excite of exporters that write the mean as ReduceMean over H, W (axes
    -1, -2 here) keeping them, HardSigmoid as the gate: NhwcGlobalAveragePool, as is
    GlobalAveragePool."""
    g = G(10, [1, 8, 6, 7])
    y = g.op("Relu", [g.conv("x", 8, 16)])
    s = g.op("ReduceMean", [y], axes=[-1, -2], keepdims=1)
    s = g.op("HardSigmoid", [g.conv(s, 16, 16)])
    return g.model([g.conv(g.op("Mul", [s, y]), 16, 8)]), 2, 3


def channel_constants():
    """Mul by a [C,1,1] and Add of a [1,C,1,1] constant (epilogues after a Relu), Sub of a
    scalar: the constants are transposed at compile time."""
    g = G(3, [1, 6, 4, 5])
    y = g.op("Relu", [g.conv("x", 6, 12)])
    y = g.op("Mul", [y, g.const(g.rng.standard_normal((12, 1, 1)))])
    y = g.op("Add", [g.const(g.rng.standard_normal((1, 12, 1, 1))), y])
    y = g.op("Sub", [y, g.const(0.5)])
    return g.model([g.conv(y, 12, 6)]), 2, 2


def concat_split():
    """Split on channels, a conv per half, Concat on channels."""
    g = G(4, [1, 8, 5, 5])
    y = g.conv("x", 8, 8)
    a, b = g.op("Split", [y], nout=2, axis=1)
    c = g.op("Concat", [g.conv(a, 4, 6), g.op("Relu", [g.conv(b, 4, 2)])], axis=1)
    return g.model([g.conv(c, 8, 4)]), 2, 4


def gap_flatten_gemm():
    """The classifier head: GlobalAveragePool, Flatten, Gemm: left through a free Reshape."""
    g = G(5, [1, 4, 6, 6])
    y = g.op("GlobalAveragePool", [g.op("Relu", [g.conv("x", 4, 16)])])
    w = g.const(g.rng.standard_normal((16, 10)))
    return g.model([g.op("Gemm", [g.op("Flatten", [y]), w])]), 1, 1


def mean_gemm():
    """The head of torchvision's ShuffleNet: ReduceMean over H, W dropping them, Gemm: [N][C]
    in either layout, so the region is left without a transpose."""
    g = G(11, [1, 4, 5, 6])
    y = g.op("ReduceMean", [g.op("Relu", [g.conv("x", 4, 16)])], axes=[2, 3], keepdims=0)
    return g.model([g.op("Gemm", [y, g.const(g.rng.standard_normal((16, 10)))])]), 1, 1


def same_pads():
    """Convs and a MaxPool with auto_pad SAME_UPPER and SAME_LOWER (strided: the lower pad is
    the larger) between 1x1 convs, their pads spelled out so that they join, and an
    intermediate that is also a graph output."""
    g = G(6, [1, 4, 6, 6])
    a = g.op("Relu", [g.conv("x", 4, 8)])
    b = g.conv(a, 8, 8, k=3, auto_pad="SAME_UPPER")
    b = g.conv(b, 8, 8, k=3, auto_pad="SAME_LOWER", strides=[2, 2])
    b = g.op("MaxPool", [b], kernel_shape=[2, 2], strides=[2, 2], auto_pad="SAME_UPPER")
    return g.model([a, g.conv(b, 8, 4)]), 3, 4


def separable_pools():
    """A strided 3x3 conv, a depthwise 3x3, a 1x1, MaxPool, AveragePool with padding, a
    grouped dilated 3x3 with a residual Add: one region, entered without a transpose (the
    first conv reads the NCHW graph input, x_nchw)."""
    g = G(8, [1, 3, 17, 15])
    y = g.op("Relu", [g.conv("x", 3, 8, k=3, strides=[2, 2])])
    y = g.op("Clip", [g.conv(y, 8, 8, k=3, group=8), g.const(0.0), g.const(6.0)])
    y = g.op("MaxPool", [g.conv(y, 8, 16)], kernel_shape=[2, 2], strides=[2, 2])
    y = g.op("AveragePool", [y], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    z = g.op("Add", [g.conv(y, 16, 16, k=3, group=2, dilations=[2, 2]), y])
    return g.model([z]), 1, 4, True


def nchw_input_residual():
    """Two images; a 3x3 conv reads the NCHW graph input as it is (x_nchw) and adds it back as
    its residual, which enters the region through a transpose of its own; a strided 3x3 conv
    after it."""
    g = G(12, [2, 5, 9, 7])
    y = g.op("Relu", [g.op("Add", [g.conv("x", 5, 5, k=3), "x"])])
    return g.model([g.conv(y, 5, 6, k=3, strides=[2, 2])]), 2, 2


def one_channel_input():
    """A one-channel input (DS-CNN's): entering the region is a free Reshape."""
    g = G(7, [1, 1, 9, 5])
    return g.model([g.op("Relu", [g.conv(g.conv("x", 1, 8), 8, 8)])]), 1, 2


def channel_shuffle():
    """ShuffleNet's unit: Split, a conv per half, Concat, the channel shuffle (Reshape to
    [N,g,C/g,H,W], Transpose(0,2,1,3,4), Reshape back), Split, Concat: one region, in which the
    shuffle is the NHWC shuffle (its Transpose the only one inside)."""
    g = G(9, [1, 8, 5, 4])
    a, b = g.op("Split", [g.conv("x", 8, 8)], nout=2, axis=1)
    c = g.op("Concat", [g.conv(a, 4, 4), g.op("Relu", [g.conv(b, 4, 4)])], axis=1)
    shapes = []
    for dims in ([1, 2, 4, 5, 4], [1, 8, 5, 4]):
        shapes.append(g.name("shape"))
        g.inits.append(numpy_helper.from_array(np.array(dims, dtype=np.int64), name=shapes[-1]))
    s = g.op("Transpose", [g.op("Reshape", [c, shapes[0]])], perm=[0, 2, 1, 3, 4])
    d, e = g.op("Split", [g.op("Reshape", [s, shapes[1]])], nout=2, axis=1)
    return g.model([g.conv(g.op("Concat", [d, g.conv(e, 4, 4)], axis=1), 8, 4)]), 3, 5


def inverted_residual():
    """MobileNetV2's block on a map the depthwise kernel runs by rows: 1x1 conv + Clip(0, 6),
    3x3 depthwise + Clip, 1x1 conv + residual Add; then EfficientNet's stride-2 form, 1x1 conv +
    HardSwish, 5x5 depthwise stride 2: each expand conv runs inside its depthwise conv
    (fuse_expand_depthwise.c, `fused`), the same bits as NCHW."""
    g = G(12, [1, 8, 30, 34])
    e = g.op("Clip", [g.conv("x", 8, 32), g.const(0.0), g.const(6.0)])
    d = g.op("Clip", [g.conv(e, 32, 32, k=3, group=32), g.const(0.0), g.const(6.0)])
    y = g.op("Add", [g.conv(d, 32, 8), "x"])
    e = g.op("HardSwish", [g.conv(y, 8, 24)])
    d = g.conv(e, 24, 24, k=5, group=24, strides=[2, 2])
    return g.model([g.conv(d, 24, 8)]), 3, 4, "auto"


inverted_residual.fused = 2

def stem_pool():
    """ResNet's stem on the NCHW input: 7x7 stride-2 conv + Relu, MaxPool 3x3 stride 2 pad 1,
    then a 3x3 conv: the stem conv (a 512 KiB output) runs inside the pool
    (fuse_conv_pool.c, `pooled`), the same bits as NCHW."""
    g = G(13, [1, 3, 128, 128])
    y = g.op("Relu", [g.conv("x", 3, 32, k=7, strides=[2, 2], pads=[3, 3, 3, 3])])
    y = g.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    return g.model([g.conv(y, 32, 8, k=3)]), 1, 1, "auto"


stem_pool.pooled = 1


def stem_pool_ceil():
    """SqueezeNet's stem: 3x3 stride-2 conv + Clip, MaxPool 3x3 stride 2 in ceil mode (a last
    window past the conv's rows and columns), a 1x1 conv: fused as stem_pool."""
    g = G(14, [1, 3, 131, 130])
    y = g.op("Clip", [g.conv("x", 3, 64, k=3, strides=[2, 2]), g.const(0.0), g.const(6.0)])
    y = g.op("MaxPool", [y], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    return g.model([g.conv(y, 64, 16)]), 1, 1, "auto"


stem_pool_ceil.pooled = 1


def fire():
    """SqueezeNet's Fire module, twice: squeeze 1x1 conv + Relu, expand 1x1 and 3x3 convs +
    Relu, Concat of the channels. Each expand conv writes its channels of the Concat's output
    itself, rows a pixel's channels apart (plan_arena's strided slices, `sliced`), so the Concat
    copies nothing; the second Concat's first input is a MaxPool's output, which it copies, and
    its 3x3 conv on 2 images (rows across the batch). The 3x3 convs reach the dense threshold:
    --layout=auto goes channels-last."""
    g = G(15, [2, 16, 20, 21])
    s = g.op("Relu", [g.conv("x", 16, 8)])
    c = g.op("Concat", [g.op("Relu", [g.conv(s, 8, 32)]), g.op("Relu", [g.conv(s, 8, 48, k=3)])],
             axis=1)
    s = g.op("Relu", [g.conv(c, 80, 16)])
    p = g.op("MaxPool", [c], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    c = g.op("Concat", [p, g.op("Relu", [g.conv(s, 16, 32, k=3)])], axis=1)
    return g.model([g.conv(c, 112, 8)]), 2, 6, "auto"


fire.sliced = 3

GRAPHS = [conv_chain, squeeze_excite, squeeze_excite_mean, channel_constants, concat_split,
          gap_flatten_gemm, mean_gemm, same_pads, separable_pools, nchw_input_residual,
          one_channel_input, channel_shuffle, inverted_residual, stem_pool, stem_pool_ceil, fire]


def tensor_file(path, a, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(a, name=name).SerializeToString())


def build(onnx2c, model, w, layout):
    c, js, prog = (os.path.join(w, f"{layout}{s}") for s in (".c", ".json", ""))
    subprocess.run([onnx2c, model, "-o", c, "--harness", f"--layout={layout}", "--report-json",
                    js], check=True)
    subprocess.run([CC, "-std=c99", "-O1", "-Wall", "-Wextra", "-pedantic", "-Werror", c, "-o",
                    prog, "-lxsmm", "-lxsmmnoblas", "-lm"], check=True)
    out = os.path.join(w, f"out_{layout}")
    os.makedirs(out, exist_ok=True)
    subprocess.run([prog, "--require-outputs", "--write-outputs", out, os.path.join(w, "data")],
                   check=True, capture_output=True)
    return json.load(open(js)), out


def check(onnx2c, work, make):
    m, want_transposes, want_convs, *auto = make()
    w = os.path.join(work, make.__name__)
    data = os.path.join(w, "data")
    os.makedirs(data, exist_ok=True)
    model = os.path.join(w, "model.onnx")
    onnx.save(m, model)
    x = np.random.default_rng(99).standard_normal(
        [d.dim_value for d in m.graph.input[0].type.tensor_type.shape.dim]).astype(np.float32)
    tensor_file(os.path.join(data, "input_0.pb"), x, "x")
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    refs = sess.run(None, {"x": x})
    for i, r in enumerate(refs):
        tensor_file(os.path.join(data, f"output_{i}.pb"), r, m.graph.output[i].name)
    errors = []
    rep_c, out_c = build(onnx2c, model, w, "nchw")
    rep_h, out_h = build(onnx2c, model, w, "nhwc")
    for i in range(len(refs)):
        a = open(os.path.join(out_c, f"output_{i}.pb"), "rb").read()
        b = open(os.path.join(out_h, f"output_{i}.pb"), "rb").read()
        if a != b:
            errors.append(f"output {i}: nhwc bits differ from nchw")
    ops_c, ops_h = rep_c["ops_after"], rep_h["ops_after"]
    own = rep_c["ops_before"].get("Transpose", 0)  # the model's own (a channel shuffle's)
    if ops_c.get("NhwcConv") or ops_c.get("Transpose", 0) != own or rep_c["nhwc_nodes"]:
        errors.append(f"--layout=nchw changed the layout: {ops_c}")
    got = (ops_h.get("Transpose", 0), ops_h.get("NhwcConv", 0))
    if got != (want_transposes, want_convs):
        errors.append(f"nhwc: {got[0]} Transpose, {got[1]} NhwcConv; want "
                      f"{want_transposes}, {want_convs} ({ops_h})")
    means = rep_h["ops_before"].get("GlobalAveragePool", 0) + rep_h["ops_before"].get(
        "ReduceMean", 0)
    if ops_h.get("NhwcGlobalAveragePool", 0) != means:
        errors.append("nhwc: the means over H, W did not all become NhwcGlobalAveragePool")
    fused = rep_h["fusions"].get("expand_depthwise", 0)
    if fused != getattr(make, "fused", 0):
        errors.append(f"nhwc: {fused} expand convs fused into depthwise convs")
    pooled = rep_h["fusions"].get("conv_maxpool", 0)
    if pooled != getattr(make, "pooled", 0):
        errors.append(f"nhwc: {pooled} convs fused into MaxPools")
    sliced = rep_h["arena_in_slice"]
    if hasattr(make, "sliced") and sliced != make.sliced:
        errors.append(f"nhwc: {sliced} Concat inputs written in their slices, want {make.sliced}")
    if len(rep_h["nhwc_nodes"]) < want_convs:
        errors.append(f"nhwc_nodes lists {rep_h['nhwc_nodes']}")
    js = os.path.join(w, "auto.json")
    subprocess.run([onnx2c, model, "-o", os.path.join(w, "auto.c"), "--report-json", js],
                   check=True)
    if bool(json.load(open(js))["nhwc_nodes"]) != bool(auto):
        errors.append(f"--layout=auto chose {'nchw' if auto else 'nhwc'}")
    emitted = os.path.join(w, "nhwc.onnx")
    subprocess.run([onnx2c, model, "-o", os.path.join(w, "e.c"), "--layout=nhwc", "--emit-onnx",
                    emitted], check=True)
    onnx.checker.check_model(onnx.load(emitted), full_check=True)
    got = ort.InferenceSession(emitted, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    for i, (a, r) in enumerate(zip(got, refs)):
        if not np.allclose(a, r, rtol=1e-4, atol=1e-5):
            errors.append(f"--emit-onnx output {i} differs from onnxruntime's on the original")
    return errors


def main():
    onnx2c, work = sys.argv[1], sys.argv[2]
    failed = 0
    for make in GRAPHS:
        errors = check(onnx2c, work, make)
        print(f"{'FAIL' if errors else 'ok'}: {make.__name__}" +
              "".join(f"\n    {e}" for e in errors))
        failed += bool(errors)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
