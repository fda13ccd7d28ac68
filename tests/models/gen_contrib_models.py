#!/usr/bin/env python3
"""com.microsoft test models: small float graphs built with onnx.helper from seeded random
weights, rewritten by onnxruntime's own tools into its contrib ops, with reference outputs.

Developer-run; the results are committed, so the tests need neither network nor this script.
Needs only the test venv (onnx, numpy, onnxruntime). From the repository root:

    .venv/bin/python tests/models/gen_contrib_models.py [NAME...]

For every model NAME it writes tests/models/NAME/model.onnx, test_data_set_0/input_0.pb,
output_0.pb, and tolerance where the default one is not right. Each generator checks that
onnxruntime really wrote the contrib ops the model is meant to test (the list printed).

    contrib_fused_conv_gemm   a CNN and MLP saved by onnxruntime at ORT_ENABLE_EXTENDED
                              (SessionOptions.optimized_model_filepath): FusedConv with Relu,
                              LeakyRelu, Clip, Sigmoid, HardSigmoid, Tanh; FusedGemm with Relu,
                              LeakyRelu, Sigmoid
    contrib_transformer_ops   a transformer-like block saved the same way: Gelu, BiasGelu,
                              QuickGelu, SkipLayerNormalization,
                              SimplifiedLayerNormalization, FusedMatMul
    contrib_qoperator         a CNN quantised by quantize_static(quant_format=QOperator):
                              QLinear{Conv,LeakyRelu,Add,Sigmoid,Mul,AveragePool,Concat,
                              GlobalAveragePool,Softmax}, QGemm; tolerance: one output quantum
    contrib_dynamic_quant     an MLP quantised by quantize_dynamic, saved at the extended
                              level: DynamicQuantizeMatMul
    contrib_handbuilt_ops     single contrib nodes these tools do not write on a CPU
    contrib_rotary            com.microsoft RotaryEmbedding, single nodes (opset 23 model)
    contrib_matmul_nbits      com.microsoft MatMulNBits (4-bit blocked weights), single nodes
    contrib_attention_ops     Attention, MultiHeadAttention, GroupQueryAttention, BiasSoftmax
                              in the forms users meet, single nodes (opset 23 model)
    contrib_dynamic_lstm      DynamicQuantizeLSTM written by quantize_dynamic (int8, per
                              channel) and hand-built (uint8, bidirectional)

Reference outputs: onnxruntime, CPU, one thread, on the saved model (graph optimisations off,
so onnxruntime runs exactly the contrib ops that the file holds). onnx2c computes each QLinear
op as its schema defines it (dequantize, float op, quantize) where onnxruntime uses tables and
integer shortcuts, so a value near a rounding boundary may land one quantum away.
"""

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent
F32 = TensorProto.FLOAT
# onnxruntime registers these contrib ops in the default domain
CONTRIB_IN_DEFAULT_DOMAIN = {"SimplifiedLayerNormalization"}
QUANTA = 1  # output quanta the QOperator model may differ by (see qoperator)
LSTM_QUANT_ATOL = 0.005  # DynamicQuantizeLSTM's activation rounding bound (see dynamic_lstm)


def const(a, name):
    return numpy_helper.from_array(np.asarray(a, np.float32), name)


def save_extended(model):
    """The model as onnxruntime saves it at the extended optimisation level (CPU)."""
    out = HERE / "_extended.onnx"
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    so.optimized_model_filepath = str(out)
    so.intra_op_num_threads = 1
    ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    m = onnx.load(str(out))
    out.unlink()
    return m


def run_feeds(model, feeds):
    """onnxruntime's outputs: CPU, one thread, graph optimisations off."""
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return s.run(None, feeds)


def run(model, x):
    return run_feeds(model, {model.graph.input[0].name: x})


def write(name, model, x, want_ops, tolerance=None, reference=None):
    """x: the input array, or a list of them in graph-input order. reference: the model
    onnxruntime runs for the expected outputs, where its CPU provider has no kernel for an op
    of `model` (default: model itself)."""
    ops = sorted({n.op_type for n in model.graph.node
                  if n.domain == "com.microsoft" or n.op_type in CONTRIB_IN_DEFAULT_DOMAIN})
    missing = set(want_ops) - set(ops)
    if missing:
        raise SystemExit(f"error: {name}: onnxruntime did not write {sorted(missing)}: {ops}")
    xs = x if isinstance(x, list) else [x]
    ref = reference or model
    feeds = {i.name: a for i, a in zip(ref.graph.input, xs)}
    outs = run_feeds(ref, feeds)
    again = run_feeds(ref, feeds)
    for a, b in zip(outs, again):
        assert a.tobytes() == b.tobytes(), f"{name}: onnxruntime is not deterministic"
    d = HERE / name
    (d / "test_data_set_0").mkdir(parents=True, exist_ok=True)
    (d / "model.onnx").write_bytes(model.SerializeToString())
    for i, a in enumerate(xs):
        (d / "test_data_set_0" / f"input_{i}.pb").write_bytes(
            numpy_helper.from_array(a).SerializeToString())
    for i, o in enumerate(outs):
        (d / "test_data_set_0" / f"output_{i}.pb").write_bytes(
            numpy_helper.from_array(o).SerializeToString())
    if tolerance:
        (d / "tolerance").write_text(tolerance + "\n")
    print(f"{name}: com.microsoft ops {' '.join(ops)}; all ops "
          f"{' '.join(n.op_type for n in model.graph.node)}")


def make_model(nodes, x_shape, y_shape, inits, opset=17):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F32, x_shape)],
                          [helper.make_tensor_value_info("y", F32, y_shape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    return m


def fused_conv_gemm(rng):
    def w(name, shape):
        return const(rng.standard_normal(shape) * 0.3, name)

    mk = helper.make_node
    nodes = [
        mk("Conv", ["x", "w1", "b1"], ["c1"]), mk("Relu", ["c1"], ["r1"]),
        # a residual block, which onnxruntime leaves unfused (Conv, Add, Relu)
        mk("Conv", ["r1", "wr", "br"], ["cr"]), mk("Add", ["cr", "r1"], ["ar"]),
        mk("Relu", ["ar"], ["rr"]),
        mk("Conv", ["rr", "w2", "b2"], ["c2"]),
        mk("LeakyRelu", ["c2"], ["l2"], alpha=0.2),
        mk("Conv", ["l2", "w3"], ["c3"]), mk("Clip", ["c3", "lo", "hi"], ["k3"]),
        mk("Conv", ["k3", "w4", "b4"], ["c4"], strides=[2, 2]), mk("Sigmoid", ["c4"], ["s4"]),
        mk("Conv", ["s4", "w5", "b5"], ["c5"]),
        mk("HardSigmoid", ["c5"], ["h5"], alpha=0.3, beta=0.4),
        mk("Conv", ["h5", "w6", "b6"], ["c6"]), mk("Tanh", ["c6"], ["t6"]),
        mk("Flatten", ["t6"], ["f"]),
        mk("Gemm", ["f", "g1", "gb1"], ["y1"], transB=1), mk("Relu", ["y1"], ["z1"]),
        mk("Gemm", ["z1", "g2", "gb2"], ["y2"]), mk("LeakyRelu", ["y2"], ["z2"], alpha=0.1),
        mk("Gemm", ["z2", "g3", "gb3"], ["y3"], alpha=0.5, beta=2.0),
        mk("Sigmoid", ["y3"], ["y"]),
    ]
    inits = [w("w1", [8, 2, 1, 1]), w("b1", [8]), w("wr", [8, 8, 1, 1]), w("br", [8]), w("w2", [8, 8, 1, 1]), w("b2", [8]),
             w("w3", [4, 8, 1, 1]), const(-0.5, "lo"), const(0.6, "hi"),
             w("w4", [3, 4, 3, 3]), w("b4", [3]), w("w5", [3, 3, 1, 1]), w("b5", [3]),
             w("w6", [3, 3, 1, 1]), w("b6", [3]),
             w("g1", [6, 147]), w("gb1", [6]), w("g2", [6, 5]), w("gb2", [5]),
             w("g3", [5, 3]), w("gb3", [1, 3])]
    m = save_extended(make_model(nodes, [1, 2, 16, 16], [1, 3], inits))
    x = rng.standard_normal((1, 2, 16, 16)).astype(np.float32)
    write("contrib_fused_conv_gemm", m, x, ["FusedConv", "FusedGemm"])


def transformer_ops(rng):
    """x [1, 4, 8]: MatMul with a transposed, scaled operand, GELU without and with a bias,
    QuickGelu, a residual LayerNormalization and an RMS norm written out. (FastGelu is fused
    by onnxruntime only for GPU providers, and by the transformers optimizer, which needs
    sympy.)"""
    D = 8
    mk = helper.make_node

    def w(name, shape, s=0.3):
        return const(rng.standard_normal(shape) * s, name)

    nodes = [
        # FusedMatMul: MatMul(x, Transpose(Wt)) * 0.5
        mk("Transpose", ["wt"], ["wtt"], perm=[1, 0]), mk("MatMul", ["x", "wtt"], ["m0"]),
        mk("Mul", ["m0", "half"], ["m1"]),
        # Gelu (erf form, no bias): 0.5 * a * (1 + erf(a / sqrt 2))
        mk("Div", ["m1", "sqrt2"], ["g0"]), mk("Erf", ["g0"], ["g1"]),
        mk("Add", ["g1", "one"], ["g2"]), mk("Mul", ["m1", "g2"], ["g3"]),
        mk("Mul", ["g3", "half"], ["g4"]),
        # BiasGelu: the same after a bias (not after a MatMul, which would become a Gemm)
        mk("Add", ["g4", "b1"], ["p1"]),
        mk("Div", ["p1", "sqrt2"], ["q0"]), mk("Erf", ["q0"], ["q1"]),
        mk("Add", ["q1", "one"], ["q2"]), mk("Mul", ["p1", "q2"], ["q3"]),
        mk("Mul", ["q3", "half"], ["q4"]),
        # QuickGelu: a * sigmoid(1.702 a)
        mk("Mul", ["q4", "c1702"], ["u0"]), mk("Sigmoid", ["u0"], ["u1"]),
        mk("Mul", ["q4", "u1"], ["u2"]),
        # SkipLayerNormalization: LayerNorm(u2 + x)
        mk("Add", ["u2", "x"], ["s0"]),
        mk("LayerNormalization", ["s0", "gamma", "beta"], ["s1"], axis=-1, epsilon=1e-5),
        # SimplifiedLayerNormalization: s1 / sqrt(mean(s1^2) + eps) * scale
        mk("Pow", ["s1", "two"], ["r0"]),
        mk("ReduceMean", ["r0"], ["r1"], axes=[-1], keepdims=1),
        mk("Add", ["r1", "eps"], ["r2"]), mk("Sqrt", ["r2"], ["r3"]),
        mk("Div", ["s1", "r3"], ["r4"]), mk("Mul", ["r4", "scale"], ["y"]),
    ]
    inits = [w("wt", [D, D]), const(0.5, "half"), const(np.sqrt(2.0), "sqrt2"),
             const(1.0, "one"), w("b1", [D], 0.1), const(1.702, "c1702"), const(1.0 + rng.standard_normal(D) * 0.1, "gamma"),
             w("beta", [D], 0.1), const(2.0, "two"), const(1e-6, "eps"),
             const(1.0 + rng.standard_normal(D) * 0.1, "scale")]
    m = save_extended(make_model(nodes, [1, 4, D], [1, 4, D], inits, opset=17))
    x = rng.standard_normal((1, 4, D)).astype(np.float32)
    write("contrib_transformer_ops", m, x,
          ["FusedMatMul", "Gelu", "BiasGelu", "QuickGelu", "SkipLayerNormalization",
           "SimplifiedLayerNormalization"])


def qoperator(rng):
    """A CNN quantised by quantize_static(quant_format=QOperator), uint8 activations, int8
    weights: QLinearConv, QLinearLeakyRelu, QLinearAdd, QLinearSigmoid, QLinearMul,
    QLinearAveragePool, QLinearConcat, QLinearGlobalAveragePool, QGemm, QLinearSoftmax."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    def w(name, shape):
        return const(rng.standard_normal(shape) * 0.3, name)

    mk = helper.make_node
    nodes = [
        mk("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        mk("LeakyRelu", ["c1"], ["l1"], alpha=0.1),
        mk("Conv", ["l1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
        mk("Add", ["c2", "l1"], ["a2"]), mk("Sigmoid", ["a2"], ["s2"]),
        mk("Mul", ["s2", "l1"], ["m2"]),
        mk("AveragePool", ["m2"], ["p2"], kernel_shape=[2, 2], strides=[2, 2]),
        mk("AveragePool", ["l1"], ["p2b"], kernel_shape=[2, 2], strides=[2, 2]),
        mk("Concat", ["p2", "p2b"], ["cc"], axis=1),
        mk("GlobalAveragePool", ["cc"], ["g"]), mk("Flatten", ["g"], ["f"]),
        mk("Gemm", ["f", "gw", "gb"], ["y0"], transB=1), mk("Softmax", ["y0"], ["y"], axis=-1),
    ]
    inits = [w("w1", [4, 2, 3, 3]), w("b1", [4]), w("w2", [4, 4, 3, 3]), w("b2", [4]),
             w("gw", [5, 8]), w("gb", [5])]
    f = HERE / "_float.onnx"
    qf = HERE / "_qop.onnx"
    onnx.save(make_model(nodes, [1, 2, 8, 8], [1, 5], inits), str(f))
    calib = [{"x": rng.standard_normal((1, 2, 8, 8)).astype(np.float32)} for _ in range(16)]

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(calib)

        def get_next(self):
            return next(self.it, None)

    quantize_static(str(f), str(qf), Reader(), quant_format=QuantFormat.QOperator,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
    m = onnx.load(str(qf))
    f.unlink()
    qf.unlink()
    x = rng.standard_normal((1, 2, 8, 8)).astype(np.float32)
    y_scale = [numpy_helper.to_array(i) for i in m.graph.initializer if i.name == "y_scale"][0]
    write("contrib_qoperator", m, x,
          ["QLinearLeakyRelu", "QLinearAdd", "QLinearSigmoid", "QLinearMul",
           "QLinearAveragePool", "QLinearConcat", "QLinearGlobalAveragePool", "QGemm",
           "QLinearSoftmax"], tolerance=f"--rtol 0 --atol {QUANTA * float(y_scale):.10g}")


def dynamic_quant(rng):
    """An MLP quantised by quantize_dynamic (int8 weights), saved at the extended level:
    DynamicQuantizeMatMul with and without a bias."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    def w(name, shape):
        return const(rng.standard_normal(shape) * 0.3, name)

    mk = helper.make_node
    nodes = [mk("MatMul", ["x", "w1"], ["m1"]), mk("Add", ["m1", "b1"], ["a1"]),
             mk("Relu", ["a1"], ["r1"]), mk("MatMul", ["r1", "w2"], ["y"])]
    f = HERE / "_float.onnx"
    qf = HERE / "_dyn.onnx"
    onnx.save(make_model(nodes, [2, 3, 16], [2, 3, 4], [w("w1", [16, 8]), w("b1", [8]),
                                                        w("w2", [8, 4])]), str(f))
    quantize_dynamic(str(f), str(qf), weight_type=QuantType.QInt8)
    m = save_extended(onnx.load(str(qf)))
    f.unlink()
    qf.unlink()
    x = rng.standard_normal((2, 3, 16)).astype(np.float32)
    write("contrib_dynamic_quant", m, x, ["DynamicQuantizeMatMul"])


def handbuilt_ops(rng):
    """The contrib ops the tools above do not write on a CPU, as single nodes (onnxruntime's
    kernels are the reference): FastGelu with a bias, SkipSimplifiedLayerNormalization, the
    com.microsoft QuantizeLinear / DequantizeLinear, FusedMatMul with transB and alpha,
    MatMulIntegerToFloat with per-column weight scales and a bias, QLinearWhere."""
    D = 8
    ms = "com.microsoft"
    mk = helper.make_node
    nodes = [
        mk("FastGelu", ["x", "fb"], ["a"], domain=ms),
        mk("SkipSimplifiedLayerNormalization", ["a", "x", "gamma"], ["b"], domain=ms,
           epsilon=1e-5),
        mk("QuantizeLinear", ["b", "qs", "qz"], ["bq"], domain=ms),
        mk("DequantizeLinear", ["bq", "qs", "qz"], ["bd"], domain=ms),
        mk("FusedMatMul", ["bd", "wt"], ["c"], domain=ms, transB=1, alpha=0.7),
        mk("MatMulIntegerToFloat", ["bq", "wq", "qs", "ws", "qz", "wz", "wb"], ["d"], domain=ms),
        mk("Greater", ["x", "zero"], ["cond"]),
        mk("QuantizeLinear", ["x", "qs2", "qz"], ["xq"], domain=ms),
        mk("QLinearWhere", ["cond", "bq", "qs", "qz", "xq", "qs2", "qz", "qs3", "qz"], ["whq"],
           domain=ms),
        mk("DequantizeLinear", ["whq", "qs3", "qz"], ["wd"], domain=ms),
        mk("Add", ["c", "d"], ["cd"]), mk("Add", ["cd", "wd"], ["y"]),
    ]
    inits = [const(rng.standard_normal(D) * 0.1, "fb"),
             const(1.0 + rng.standard_normal(D) * 0.1, "gamma"), const(0.02, "qs"),
             numpy_helper.from_array(np.array(128, np.uint8), "qz"),
             const(rng.standard_normal((D, D)) * 0.3, "wt"),
             numpy_helper.from_array(rng.integers(-127, 128, (D, D)).astype(np.int8), "wq"),
             const(rng.uniform(0.001, 0.004, D), "ws"),
             numpy_helper.from_array(np.zeros(D, np.int8), "wz"),
             const(rng.standard_normal(D) * 0.1, "wb"), const(0.0, "zero"),
             const(0.03, "qs2"), const(0.025, "qs3")]
    # b is an output too: the float ops before the quantisation, compared unrounded
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F32, [1, 4, D])],
                          [helper.make_tensor_value_info("y", F32, [1, 4, D]),
                           helper.make_tensor_value_info("b", F32, [1, 4, D])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid(ms, 1)])
    m.ir_version = 8
    x = rng.standard_normal((1, 4, D)).astype(np.float32)
    write("contrib_handbuilt_ops", m, x,
          ["FastGelu", "SkipSimplifiedLayerNormalization", "QuantizeLinear", "DequantizeLinear",
           "FusedMatMul", "MatMulIntegerToFloat", "QLinearWhere"])


def rotary(rng):
    """com.microsoft RotaryEmbedding on a rank-3 input (num_heads, position_ids [B, S]) and,
    interleaved, on a rank-4 one with a position offset of one element (opset 23 model)."""
    B, S, N, H, P = 2, 3, 2, 4, 8
    ms = "com.microsoft"
    mk = helper.make_node
    nodes = [
        mk("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["a"], domain=ms, num_heads=N),
        mk("Reshape", ["a", "shape4"], ["a4"]), mk("Transpose", ["a4"], ["at"], perm=[0, 2, 1, 3]),
        mk("RotaryEmbedding", ["at", "offset", "cos", "sin"], ["y"], domain=ms, interleaved=1),
    ]
    theta = np.arange(P)[:, None] / (10000.0 ** (np.arange(H // 2)[None, :] * 2.0 / H))
    inits = [numpy_helper.from_array(rng.integers(0, P, (B, S)).astype(np.int64), "pos"),
             const(np.cos(theta), "cos"), const(np.sin(theta), "sin"),
             numpy_helper.from_array(np.array([B, S, N, H], np.int64), "shape4"),
             numpy_helper.from_array(np.array([2], np.int64), "offset")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F32, [B, S, N * H])],
                          [helper.make_tensor_value_info("y", F32, [B, N, S, H])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23),
                                            helper.make_opsetid(ms, 1)])
    m.ir_version = 10
    x = rng.standard_normal((B, S, N * H)).astype(np.float32)
    write("contrib_rotary", m, x, ["RotaryEmbedding"])


def pack4(q):
    """uint8 values < 16 [rows, cols] -> [rows, ceil(cols / 2)] bytes, low nibble first."""
    if q.shape[1] % 2:
        q = np.concatenate([q, np.zeros((q.shape[0], 1), np.uint8)], axis=1)
    return (q[:, 0::2] | (q[:, 1::2] << 4)).astype(np.uint8)


def matmul_nbits(rng):
    """com.microsoft MatMulNBits (what onnxruntime's MatMulNBitsQuantizer writes; that tool
    needs onnx_ir, so the weights are packed here): 4 bits, K=40 in blocks of 16 (the last
    one partial), with zero points and a bias; and 4 bits without zero points (default 8).
    onnxruntime's result is checked against numpy's (x @ ((q - zero_point) * scale))."""
    ms = "com.microsoft"
    K, N, BS = 40, 8, 16
    nb = (K + BS - 1) // BS
    mk = helper.make_node

    def weights(tag, with_zp):
        q = rng.integers(0, 16, (N, nb * BS)).astype(np.uint8)
        q[:, K:] = 0
        b = pack4(q).reshape(N, nb, BS // 2)
        inits = [numpy_helper.from_array(b, tag + "_b"),
                 const(rng.uniform(0.01, 0.05, N * nb), tag + "_s")]
        names = [tag + "_b", tag + "_s"]
        zp = np.full((N, nb), 8, np.uint8)
        if with_zp:
            zp = rng.integers(0, 16, (N, nb)).astype(np.uint8)
            inits.append(numpy_helper.from_array(pack4(zp).reshape(-1), tag + "_z"))
            names.append(tag + "_z")
        scale = numpy_helper.to_array(inits[1]).reshape(N, nb)
        w = (q.astype(np.float32) - np.repeat(zp, BS, axis=1)) * np.repeat(scale, BS, axis=1)
        return inits, names, w[:, :K].T  # [K, N], the numpy reference's weight

    i1, n1, w1 = weights("w1", True)
    i2, n2, w2 = weights("w2", False)
    nodes = [mk("MatMulNBits", ["x", *n1, "", "bias"], ["a"], domain=ms, K=K, N=N, bits=4,
                block_size=BS),
             mk("Concat", ["a", "a", "a", "a", "a"], ["a5"], axis=-1),
             mk("MatMulNBits", ["a5", *n2], ["y"], domain=ms, K=K, N=N, bits=4, block_size=BS)]
    inits = i1 + i2 + [const(rng.standard_normal(N) * 0.1, "bias")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F32, [3, K])],
                          [helper.make_tensor_value_info("y", F32, [3, N])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid(ms, 1)])
    m.ir_version = 8
    x = rng.standard_normal((3, K)).astype(np.float32)
    a = x @ w1 + numpy_helper.to_array(inits[-1])
    np.testing.assert_allclose(run(m, x)[0], np.tile(a, 5) @ w2, rtol=1e-4, atol=1e-5)
    write("contrib_matmul_nbits", m, x, ["MatMulNBits"])


def attention_ops(rng):
    """onnxruntime's attention ops as single nodes on one input x [2, 3, 8] (2 heads of 4) and
    two run-time masks (int32 [2] key counts, [2, 3] raw 0/1), opset 23:
    Attention with each mask_index form ([B], [2B], [B, T], [B, S, T]), unidirectional, past
    [2, B, N, P, H] with present, attention_bias, qkv_hidden_sizes and scale;
    MultiHeadAttention with separate Q, K, V (+ bias, key_padding_mask [B, T], past_key /
    past_value with present), packed QKV [B, S, N, 3, H] (unidirectional), packed KV
    [B, L, N, 2, H] (key_padding_mask [B]), and key/value as [B, N, L, H] (the bias then
    added to Q only, as onnxruntime does);
    GroupQueryAttention (4 query heads over 2 key/value heads of 16) with packed QKV and
    rotary embeddings, and with separate Q, K, V for one new token after a past of 2, with
    softcap; both again with local_window_size 1;
    BiasSoftmax over the last axis (bias broadcast over the heads) and over axes 1.. (axis 1);
    EmbedLayerNormalization with position_ids and the embedding sum, and with segments and a
    mask (the raw mask input as ids, segments and mask: run-time indices).
    onnxruntime's CPU provider has no kernel for packed MultiHeadAttention nor for
    BiasSoftmax: the reference model has those nodes replaced by their definitions (the
    unpacked MultiHeadAttention; Add + Softmax), the other nodes as they are."""
    B, S, N, H, P = 2, 3, 2, 4, 2
    D = N * H
    ms = "com.microsoft"
    mk = helper.make_node
    I32, I64 = TensorProto.INT32, TensorProto.INT64

    def w(name, shape, s=0.4):
        return const(rng.standard_normal(shape) * s, name)

    def ints(name, a, t=np.int64):
        return numpy_helper.from_array(np.asarray(a, t), name)

    GN, GKV, GH = 4, 2, 16  # GroupQueryAttention: rotary needs a head size multiple of 16
    theta = np.arange(8)[:, None] / (10000.0 ** (np.arange(GH // 2)[None, :] * 2.0 / GH))
    inits = [
        w("W", [D, 3 * D]), w("b", [3 * D], 0.1), w("W5", [D, 2 * D + 4]), w("b5", [2 * D + 4]),
        ints("m2b", [3, 2, 0, 1], np.int32),
        numpy_helper.from_array((rng.random((B, S, S)) > 0.3).astype(np.int32), "m3"),
        w("past", [2, B, N, P, H]), w("ab", [1, N, S, S]), ints("m5", [[1, 1, 1, 0, 1], [0, 1, 1, 1, 1]], np.int32),
        w("mb", [3 * D], 0.1), w("Wp", [D, 3 * D]), w("Wkv", [D, 2 * D]),
        w("pk", [B, N, P, H]), w("pv", [B, N, P, H]),
        ints("shape_qkv", [B, S, N, 3, H]), ints("shape_kv", [B, S, N, 2, H]),
        ints("shape_bsnh", [B, S, N, H]),
        w("Wg", [D, (GN + 2 * GKV) * GH]), w("Wq", [D, GN * GH]), w("Wk", [D, GKV * GH]),
        w("Wv", [D, GKV * GH]), w("gpk", [B, GKV, P, GH]), w("gpv", [B, GKV, P, GH]),
        const(np.cos(theta), "cos"), const(np.sin(theta), "sin"),
        ints("seq0", [S - 1] * B, np.int32), ints("tot0", S, np.int32),
        ints("seq1", [P] * B, np.int32), ints("tot1", P + 1, np.int32),
        ints("zero1", [0]), ints("one1", [1]),
        w("sb", [B, 1, 1, S]), w("sb2", [1, 3, 4]), ints("shape_s", [B, 3, 4]),
        w("wemb", [4, D], 1.0), w("pemb", [6, D], 1.0), w("semb", [2, D], 1.0),
        const(1.0 + rng.standard_normal(D) * 0.1, "gamma"), w("beta", [D], 0.1),
        ints("posids", [[4, 1, 2]], np.int32),
    ]
    attn = [
        mk("Attention", ["x", "W", "b", "m1"], ["a1"], domain=ms, num_heads=N),
        mk("Attention", ["x", "W", "b", "m2b"], ["a2"], domain=ms, num_heads=N, unidirectional=1),
        mk("Attention", ["x", "W", "b", "m2", "", "ab"], ["a3"], domain=ms, num_heads=N,
           mask_filter_value=-1000.0),
        mk("Attention", ["x", "W", "b", "", "past"], ["a4", "present"], domain=ms, num_heads=N,
           unidirectional=1),
        mk("Attention", ["x", "W5", "b5", "m3", "", ""], ["a5"], domain=ms, num_heads=N,
           qkv_hidden_sizes=[D, D, 4], scale=0.3),
        mk("Attention", ["a1", "W", "", "m5", "past"], ["a6", "present6"], domain=ms, num_heads=N),
        # MultiHeadAttention, separate Q, K, V
        mk("MultiHeadAttention", ["x", "a1", "a2", "mb", "m2"], ["h1"], domain=ms, num_heads=N),
        mk("MultiHeadAttention", ["a3", "a1", "a2", "mb", "", "", "pk", "pv"],
           ["h2", "present_k", "present_v"], domain=ms, num_heads=N, unidirectional=1),
        # key/value as [B, N, L, H]
        mk("Reshape", ["a1", "shape_bsnh"], ["k4r"]),
        mk("Transpose", ["k4r"], ["k4"], perm=[0, 2, 1, 3]),
        mk("Reshape", ["a2", "shape_bsnh"], ["v4r"]),
        mk("Transpose", ["v4r"], ["v4"], perm=[0, 2, 1, 3]),
        mk("MultiHeadAttention", ["x", "k4", "v4", "mb"], ["h3"], domain=ms, num_heads=N,
           scale=0.25),
        # GroupQueryAttention
        mk("MatMul", ["x", "Wg"], ["gqkv"]),
        mk("GroupQueryAttention", ["gqkv", "", "", "", "", "seq0", "tot0", "cos", "sin"],
           ["g1", "g1k", "g1v"], domain=ms, num_heads=GN, kv_num_heads=GKV, do_rotary=1),
        # a decode step: one new token after a past of 2
        mk("Slice", ["x", "zero1", "one1", "one1"], ["x1"]),
        mk("MatMul", ["x1", "Wq"], ["gq"]), mk("MatMul", ["x1", "Wk"], ["gk"]),
        mk("MatMul", ["x1", "Wv"], ["gv"]),
        mk("GroupQueryAttention", ["gq", "gk", "gv", "gpk", "gpv", "seq1", "tot1"],
           ["g2", "g2k", "g2v"], domain=ms, num_heads=GN, kv_num_heads=GKV, softcap=2.0),
        # EmbedLayerNormalization with position_ids [1, S], no segments and no mask (its
        # mask_index is zeros), with the embedding sum; then with segments and a mask
        mk("EmbedLayerNormalization", ["m2", "", "wemb", "pemb", "", "gamma", "beta", "",
                                       "posids"], ["e1", "e1m", "e1s"], domain=ms,
           epsilon=1e-5),
        mk("EmbedLayerNormalization", ["m2", "m2", "wemb", "pemb", "semb", "gamma", "beta",
                                       "m2"], ["e2", "e2m"], domain=ms),
        # a sliding window of one key before each query's own
        mk("GroupQueryAttention", ["gqkv", "", "", "", "", "seq0", "tot0"], ["g3"], domain=ms,
           num_heads=GN, kv_num_heads=GKV, local_window_size=1),
        mk("GroupQueryAttention", ["gq", "gk", "gv", "gpk", "gpv", "seq1", "tot1"],
           ["g4", "g4k", "g4v"],
           domain=ms, num_heads=GN, kv_num_heads=GKV, local_window_size=1),
    ]
    # packed MultiHeadAttention, and what it means (the reference)
    packed = [
        mk("MatMul", ["x", "Wp"], ["qkv0"]), mk("Reshape", ["qkv0", "shape_qkv"], ["qkv"]),
        mk("MultiHeadAttention", ["qkv"], ["h4"], domain=ms, num_heads=N, unidirectional=1),
        mk("MatMul", ["a2", "Wkv"], ["kv0"]), mk("Reshape", ["kv0", "shape_kv"], ["kv"]),
        mk("MultiHeadAttention", ["x", "kv", "", "mb", "m1"], ["h5"], domain=ms, num_heads=N),
        mk("MatMul", ["a1", "a1t"], ["sc"]),
        mk("BiasSoftmax", ["sc4", "sb"], ["s1"], domain=ms, axis=3, is_inner_broadcast=1),
        mk("Reshape", ["a5", "shape_s"], ["a3r"]),
        mk("BiasSoftmax", ["a3r", "sb2"], ["s2"], domain=ms, axis=1, is_inner_broadcast=0),
    ]
    # scores [B, N, S, S] for the first BiasSoftmax, from a1
    pre = [mk("Reshape", ["a1", "shape_bsnh"], ["a1r"]),
           mk("Transpose", ["a1r"], ["a1h"], perm=[0, 2, 1, 3]),
           mk("Transpose", ["a1r"], ["a1t"], perm=[0, 2, 3, 1]),
           mk("MatMul", ["a1h", "a1t"], ["sc4"])]
    packed = [p for p in packed if p.output[0] != "sc"]

    def unpacked():
        """The reference's replacements of the packed MultiHeadAttention and BiasSoftmax."""
        shp = lambda name, v: ints(name, v)
        extra = [shp("split3", [1, 1, 1]), shp("split2", [1, 1]), shp("bsd", [B, S, D]),
                 shp("flat", [B, 12])]
        nodes = [
            mk("MatMul", ["x", "Wp"], ["qkv0"]), mk("Reshape", ["qkv0", "shape_qkv"], ["qkv"]),
            mk("Split", ["qkv", "split3"], ["uq", "uk", "uv"], axis=3),
            mk("Reshape", ["uq", "bsd"], ["uq3"]), mk("Reshape", ["uk", "bsd"], ["uk3"]),
            mk("Reshape", ["uv", "bsd"], ["uv3"]),
            mk("MultiHeadAttention", ["uq3", "uk3", "uv3"], ["h4"], domain=ms, num_heads=N,
               unidirectional=1),
            mk("MatMul", ["a2", "Wkv"], ["kv0"]), mk("Reshape", ["kv0", "shape_kv"], ["kv"]),
            mk("Split", ["kv", "split2"], ["ukk", "ukv"], axis=3),
            mk("Reshape", ["ukk", "bsd"], ["ukk3"]), mk("Reshape", ["ukv", "bsd"], ["ukv3"]),
            mk("MultiHeadAttention", ["x", "ukk3", "ukv3", "mb", "m1"], ["h5"], domain=ms,
               num_heads=N),
            mk("Add", ["sc4", "sb"], ["sa"]), mk("Softmax", ["sa"], ["s1"], axis=3),
            mk("Reshape", ["a5", "shape_s"], ["a3r"]), mk("Add", ["a3r", "sb2"], ["sa2"]),
            mk("Reshape", ["sa2", "flat"], ["sf"]), mk("Softmax", ["sf"], ["sf1"], axis=1),
            mk("Reshape", ["sf1", "shape_s"], ["s2"]),
        ]
        return nodes, extra

    ints_out = {"e1m", "e2m"}  # mask_index: int32
    outs = ["a1", "a2", "a3", "a4", "present", "a5", "a6", "h1", "h2", "present_k", "present_v",
            "h3", "g1", "g1k", "g1v", "g2", "g2k", "g2v", "h4", "h5", "s1", "s2", "g3", "g4",
            "e1", "e1m", "e1s", "e2", "e2m"]
    inputs = [helper.make_tensor_value_info("x", F32, [B, S, D]),
              helper.make_tensor_value_info("m1", I32, [B]),
              helper.make_tensor_value_info("m2", I32, [B, S])]

    def model(nodes, inits):
        g = helper.make_graph(nodes, "g", inputs,
                              [helper.make_tensor_value_info(o, I32 if o in ints_out else F32,
                                                             None) for o in outs], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23),
                                                helper.make_opsetid(ms, 1)])
        m.ir_version = 10
        return m

    for i, n in enumerate(attn + pre + packed):
        n.name = f"{n.op_type}_{n.output[0]}"
    m = model(attn + pre + packed, inits)
    extra_nodes, extra_inits = unpacked()
    ref = model(attn + pre + extra_nodes, inits + extra_inits)
    # value_info-free outputs: give them their shapes from onnxruntime's run
    x = rng.standard_normal((B, S, D)).astype(np.float32)
    m1 = np.array([2, 3], np.int32)
    m2 = np.array([[1, 1, 0], [1, 0, 1]], np.int32)
    write("contrib_attention_ops", m, [x, m1, m2],
          ["Attention", "MultiHeadAttention", "GroupQueryAttention", "BiasSoftmax",
           "EmbedLayerNormalization"],
          reference=ref)


def dynamic_lstm(rng):
    """DynamicQuantizeLSTM: after a float feature projection, a forward LSTM quantised by
    quantize_dynamic(per_channel=True) (int8 weights, a scale per gate column), then a bidirectional one with uint8 weights, zero
    points and scales per direction and an initial state (hand-built: the quantiser writes
    int8 weights only). onnx2c runs the float LSTM of the dequantized weights, while
    onnxruntime's kernel also quantizes X and the hidden state to uint8 at every step: the
    expected outputs are onnxruntime's float LSTM on the weights dequantized here (numpy), and
    onnxruntime's DynamicQuantizeLSTM is checked to lie within LSTM_QUANT_ATOL of them."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    T, B, I, H, H2 = 4, 2, 6, 5, 3
    ms = "com.microsoft"
    mk = helper.make_node
    f = HERE / "_float.onnx"
    qf = HERE / "_dyn.onnx"
    # a feature projection (32 wide) before the LSTMs, as in keyword spotting models
    front = [mk("MatMul", ["x", "P1"], ["p1"], name="proj1"), mk("Relu", ["p1"], ["p2"]),
             mk("MatMul", ["p2", "P2"], ["p3"], name="proj2")]
    lstm = mk("LSTM", ["p3", "W", "R", "B"], ["y"], hidden_size=H, name="lstm1")
    onnx.save(make_model(front + [lstm], [T, B, I], [T, 1, B, H],
                         [const(rng.standard_normal((I, 32)) * 0.4, "P1"),
                          const(rng.standard_normal((32, I)) * 0.3, "P2"),
                          const(rng.standard_normal((1, 4 * H, I)) * 0.3, "W"),
                          const(rng.standard_normal((1, 4 * H, H)) * 0.3, "R"),
                          const(rng.standard_normal((1, 8 * H)) * 0.1, "B")]), str(f))
    quantize_dynamic(str(f), str(qf), weight_type=QuantType.QInt8, per_channel=True,
                     op_types_to_quantize=["LSTM"])
    q = onnx.load(str(qf))
    f.unlink()
    qf.unlink()
    inits = {i.name: numpy_helper.to_array(i) for i in q.graph.initializer}
    (node1,) = [n for n in q.graph.node if n.op_type == "DynamicQuantizeLSTM"]
    node1.name = "dqlstm1"
    node1.output[0] = "y1"
    u8 = lambda a, name: numpy_helper.from_array(np.asarray(a, np.uint8), name)
    w2 = rng.integers(0, 256, (2, H, 4 * H2))
    r2 = rng.integers(0, 256, (2, H2, 4 * H2))
    hand = {"W2": w2.astype(np.uint8), "R2": r2.astype(np.uint8),
            "W2z": np.array([128, 120], np.uint8), "R2z": np.array([131, 126], np.uint8),
            "W2s": np.array([0.004, 0.003], np.float32), "R2s": np.array([0.005, 0.002], np.float32),
            "B2": (rng.standard_normal((2, 8 * H2)) * 0.1).astype(np.float32),
            "h0": (rng.standard_normal((2, B, H2)) * 0.5).astype(np.float32),
            "axes": np.array([1], np.int64)}
    front = [n for n in q.graph.node if n.op_type != "DynamicQuantizeLSTM"]
    nodes = front + [node1, mk("Squeeze", [node1.output[0], "axes"], ["s1"], name="squeeze1"),
             mk("DynamicQuantizeLSTM", ["s1", "W2", "R2", "B2", "", "h0", "", "", "W2s", "W2z",
                                        "R2s", "R2z"], ["y", "yh", "yc"], domain=ms,
                hidden_size=H2, direction="bidirectional", name="dqlstm2")]
    allinits = {**inits, **hand}

    def dequant(qw, scale, zp):
        """[D][K][4H] quantized -> [D][4H][K] float, a scale per direction or per column."""
        scale = scale.reshape(qw.shape[0], -1)[:, None, :]
        zp = zp.reshape(qw.shape[0], -1)[:, None, :].astype(np.int32)
        return ((qw.astype(np.int32) - zp) * scale).astype(np.float32).transpose(0, 2, 1)

    i1 = list(node1.input)
    ref_w = {"rW1": dequant(allinits[i1[1]], allinits[i1[8]], allinits[i1[9]]),
             "rR1": dequant(allinits[i1[2]], allinits[i1[10]], allinits[i1[11]]),
             "rW2": dequant(hand["W2"], hand["W2s"], hand["W2z"]),
             "rR2": dequant(hand["R2"], hand["R2s"], hand["R2z"])}
    ref_nodes = front + [mk("LSTM", [i1[0], "rW1", "rR1", i1[3]], [node1.output[0]],
                            hidden_size=H), nodes[len(front) + 1],
                 mk("LSTM", ["s1", "rW2", "rR2", "B2", "", "h0"], ["y", "yh", "yc"],
                    hidden_size=H2, direction="bidirectional")]
    outputs = [helper.make_tensor_value_info(o, F32, None) for o in ["y", "yh", "yc"]]

    def model(nodes, arrays):
        g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F32, [T, B, I])],
                              outputs, [numpy_helper.from_array(a, k) for k, a in arrays.items()])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid(ms, 1)])
        m.ir_version = 8
        return m

    m = model(nodes, allinits)
    ref = model(ref_nodes, {**allinits, **ref_w})
    x = rng.standard_normal((T, B, I)).astype(np.float32)
    for a, b in zip(run(m, x), run(ref, x)):
        err = float(np.abs(a - b).max())
        assert err <= LSTM_QUANT_ATOL, f"DynamicQuantizeLSTM differs by {err} from the float LSTM"
        print(f"contrib_dynamic_lstm: onnxruntime's DynamicQuantizeLSTM vs the float LSTM: "
              f"max abs {err:.3g}")
    write("contrib_dynamic_lstm", m, x, ["DynamicQuantizeLSTM"], reference=ref)


GENERATORS = {
    "contrib_matmul_nbits": (matmul_nbits, 27), "contrib_rotary": (rotary, 26),
    "contrib_handbuilt_ops": (handbuilt_ops, 24), "contrib_fused_conv_gemm": (fused_conv_gemm, 21),
    "contrib_transformer_ops": (transformer_ops, 22), "contrib_qoperator": (qoperator, 23),
    "contrib_dynamic_quant": (dynamic_quant, 25), "contrib_attention_ops": (attention_ops, 28),
    "contrib_dynamic_lstm": (dynamic_lstm, 29),
}


def main():
    """Every model, or those named on the command line."""
    names = sys.argv[1:] or list(GENERATORS)
    for name in names:
        if name not in GENERATORS:
            raise SystemExit(f"error: unknown model {name}; known: {' '.join(GENERATORS)}")
        make, seed = GENERATORS[name]
        make(np.random.default_rng(seed))


if __name__ == "__main__":
    main()
