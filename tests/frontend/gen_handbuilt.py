#!/usr/bin/env python3
"""Hand-built frontend test models, one per fold/fuse pattern, with onnxruntime references.

Needs only onnx, numpy and onnxruntime (requirements.txt; no torch, no onnxscript: every
graph is written with onnx.helper so that its exact structure is under our control).
From the repository root:

    .venv/bin/python tests/frontend/gen_handbuilt.py [NAME...]

Writes tests/frontend/models/NAME/ for every NAME below (layout in frontend_common.py):
model.onnx, test_data_set_0/{input,output}_<i>.pb and expected.json (what the frontend should
reduce the graph to). Deterministic: every model has its own seed
(numpy.random.default_rng(seed)), and the same run gives the same bytes.

The models reproduce what exporters emit (see README.md for the node lists):
  addmm_*            onnxscript torchlib's addmm decomposition (MatMul, Mul alpha, Mul beta,
                     Add, CastLike on the scalars), in both operand orders, and without CastLike
  torchlib_*         the same Linear as model-local functions in pkg.onnxscript.torch_lib
                     calling helpers in pkg.onnxscript.torch_lib.common, behind If nodes on
                     Rank(x) == 2 and IsScalar(bias), with attribute references and defaults
  recursive_*        functions that call themselves (must be refused; no test data)
  transpose_*        Transpose feeding Gemm/MatMul operands; Transpose+Expand+Gemm (old Linear)
  expand_add         Add(x, Expand(bias, shape)) with the Expand result = the broadcast shape
  identity_chain     Identity, Dropout (inference), Mul by 1, Add of 0 around a Relu
  transpose_unit_axes  Transposes that move only axes of size 1 (views) next to one that does not
  matmul_add_3d      MatMul [2,3,4] x constant [4,5] + bias [5]
  conv_*, gemm_*     BatchNormalization / per-channel Mul+Add after Conv and Gemm
  epilogue_*         Gemm followed by one activation (or a bias / residual Add)
  elementwise_chain  x -> Mul(c) -> Add(d) -> Sigmoid -> Mul(x)
  loop_*, scan_*     Loop/Scan with compile-time trip counts (unrolled): a counted loop, a body
                     reading outer-scope values with a condition that folds, a reverse Scan
                     over a sequence axis
"""

import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import frontend_common as fc

F32 = TensorProto.FLOAT
PRODUCER = "onnx2c-frontend-tests"
TL = "pkg.onnxscript.torch_lib"
TLC = "pkg.onnxscript.torch_lib.common"

# IR version per default-domain opset (the lowest IR that has the features used).
IR_FOR_OPSET = {17: 8, 18: 8, 20: 9}


def vi(name, shape):
    return helper.make_tensor_value_info(name, F32, list(shape))


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name=name)


def node(op, inputs, outputs, name, domain="", **attrs):
    return helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs)


def const_f(name, value):
    """A Constant node with value_float, as onnxscript emits for Python float literals."""
    return node("Constant", [], [name], name, value_float=float(value))


def const_t(name, array):
    """A Constant node with a tensor value."""
    return node("Constant", [], [name], name, value=numpy_helper.from_array(np.asarray(array), name=name))


def model(nodes, inputs, outputs, initializers=(), opset=17, functions=(), extra_opsets=(),
          ir_version=None, graph_name="main_graph"):
    graph = helper.make_graph(list(nodes), graph_name, list(inputs), list(outputs),
                              initializer=list(initializers))
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(graph, opset_imports=opsets, producer_name=PRODUCER,
                          functions=list(functions))
    m.ir_version = ir_version or IR_FOR_OPSET[opset]
    return m


def normal(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def weights(rng, k, n, gain=1.0):
    """[k, n] weight with output std about gain for a unit-variance input."""
    return normal(rng, (k, n), gain / np.sqrt(k))


CASES = []


def case(fn):
    CASES.append(fn)
    return fn


# --------------------------------------------------------------------------
# addmm decomposition (onnxscript torchlib aten_addmm as a traced graph)
# --------------------------------------------------------------------------

def _addmm(name, seed, alpha, beta, swapped=False, castlike=True):
    rng = np.random.default_rng(seed)
    m_, k, n = 4, 16, 8
    w = weights(rng, k, n)
    b = normal(rng, (n,))
    inits = [init("W", w), init("bias", b)]
    nodes = [node("MatMul", ["x", "W"], ["mm"], "mm")]
    if castlike:
        nodes += [const_f("alpha", alpha),
                  node("CastLike", ["alpha", "mm"], ["alpha_cast"], "alpha_cast"),
                  const_f("beta", beta),
                  node("CastLike", ["beta", "bias"], ["beta_cast"], "beta_cast")]
        a_name, b_name = "alpha_cast", "beta_cast"
    else:
        inits += [init("alpha", np.float32(alpha)), init("beta", np.float32(beta))]
        a_name, b_name = "alpha", "beta"
    if not swapped:
        nodes += [node("Mul", ["mm", a_name], ["scaled_mm"], "scaled_mm"),
                  node("Mul", [b_name, "bias"], ["scaled_bias"], "scaled_bias"),
                  node("Add", ["scaled_bias", "scaled_mm"], ["y"], "addmm")]
    else:
        nodes += [node("Mul", [a_name, "mm"], ["scaled_mm"], "scaled_mm"),
                  node("Mul", ["bias", b_name], ["scaled_bias"], "scaled_bias"),
                  node("Add", ["scaled_mm", "scaled_bias"], ["y"], "addmm")]
    mdl = model(nodes, [vi("x", (m_, k))], [vi("y", (m_, n))], inits)
    x = normal(rng, (m_, k))
    return name, mdl, {"x": x}, {"ops_after": {"Gemm": 1},
                                 "note": f"one Gemm, alpha={alpha}, beta={beta} (or folded into W/bias)"}


@case
def addmm_castlike():
    # The torchlib form: Mul(mm, CastLike(alpha, mm)), Mul(CastLike(beta, bias), bias), Add.
    return _addmm("addmm_castlike", 101, alpha=1.0, beta=1.0)


@case
def addmm_swapped():
    # Every Mul/Add with its operands swapped; alpha/beta != 1 so that they must be kept.
    return _addmm("addmm_swapped", 102, alpha=0.5, beta=2.0, swapped=True)


@case
def addmm_nocast():
    # The same without CastLike: alpha/beta are scalar float initializers.
    return _addmm("addmm_nocast", 103, alpha=0.25, beta=-1.5, castlike=False)


# --------------------------------------------------------------------------
# torchlib function form
# --------------------------------------------------------------------------

def torchlib_functions_protos():
    """Model-local functions in the style of onnxscript's torchlib (torch <= 2.4 dynamo_export).

    Node for node what onnxscript 0.7.2 compiles for the same Python (Rank, IsScalar, aten_t
    and aten_addmm are the torchlib sources; `rank == 2` becomes Constant(int64 2), CastLike,
    Equal; If branches have no inputs and untyped outputs), except that Rank/IsScalar import
    ai.onnx 17 where onnxscript writes 18, so that a function-level opset import differs from
    the model's (18) and must be honoured.

    pkg.onnxscript.torch_lib.common::Rank(input)     = Size(Shape(input))
    pkg.onnxscript.torch_lib.common::IsScalar(input) = Equal(Size(Shape(input)), Constant 0)
    pkg.onnxscript.torch_lib::aten_t(self)           = If(Rank(self) == 2) Transpose else Identity
    pkg.onnxscript.torch_lib::aten_addmm(self, mat1, mat2) <beta=1.0, alpha=1.0 defaults>
        = Add(Mul(self, CastLike(Constant(@beta), self)), Mul(MatMul(mat1, mat2),
                                                            CastLike(Constant(@alpha), mm)))
    pkg.onnxscript.torch_lib::aten_relu(self)        = Relu(self)
    pkg.onnxscript.torch_lib::aten_linear(input, weight, bias) <alpha=1.0, beta=1.0 defaults>
        bias_1d = If(IsScalar(bias)) then Unsqueeze(bias, [0]) else Identity(bias)
        result  = If(Rank(input) == 2)
                    then: wt = aten_t(weight); aten_addmm(bias_1d, input, wt) <alpha=@alpha, beta=@beta>
                    else: Add(MatMul(input, Transpose(weight)), bias_1d)
    Every If branch reads names of the enclosing function (outer scope) and defines no inputs.
    """
    tl_imports = [helper.make_opsetid("", 18), helper.make_opsetid(TLC, 1),
                  helper.make_opsetid(TL, 1)]
    common_imports = [helper.make_opsetid("", 17)]

    rank = helper.make_function(
        TLC, "Rank", ["input"], ["return_val"],
        [node("Shape", ["input"], ["tmp"], "n0"),
         node("Size", ["tmp"], ["return_val"], "n1")],
        common_imports, doc_string="Take the rank of the input tensor.")

    is_scalar = helper.make_function(
        TLC, "IsScalar", ["input"], ["return_val"],
        [node("Shape", ["input"], ["tmp"], "n0"),
         node("Size", ["tmp"], ["tmp_0"], "n1"),
         node("Constant", [], ["tmp_1"], "n2", value_int=0),
         node("Equal", ["tmp_0", "tmp_1"], ["return_val"], "n3")],
        common_imports, doc_string="Return whether the input has rank 0, or is a scalar.")

    # aten_t: If on Rank(self) == 2; both branches read `self` from the enclosing scope.
    t_then = helper.make_graph(
        [node("Transpose", ["self"], ["result"], "n0", perm=[1, 0])],
        "thenGraph_4", [], [helper.make_value_info("result", helper.make_empty_tensor_value_info("result").type)])
    t_else = helper.make_graph(
        [node("Identity", ["self"], ["result_1"], "n0")],
        "elseGraph_4", [], [helper.make_value_info("result_1", helper.make_empty_tensor_value_info("result_1").type)])
    aten_t = helper.make_function(
        TL, "aten_t", ["self"], ["result_2"],
        [node("Rank", ["self"], ["rank"], "n0", domain=TLC),
         const_t("int64_2", np.int64(2)),
         node("CastLike", ["int64_2", "rank"], ["int64_2_cast"], "n2"),
         node("Equal", ["rank", "int64_2_cast"], ["cond"], "n3"),
         node("If", ["cond"], ["result_2"], "n4", then_branch=t_then, else_branch=t_else)],
        tl_imports, doc_string="t(Tensor(a) self) -> Tensor(a)")

    alpha_ref = helper.make_attribute_ref("value_float", helper.AttributeProto.FLOAT,
                                          ref_attr_name="alpha")
    beta_ref = helper.make_attribute_ref("value_float", helper.AttributeProto.FLOAT,
                                         ref_attr_name="beta")
    n_alpha = node("Constant", [], ["alpha"], "n1")
    n_alpha.attribute.append(alpha_ref)
    n_beta = node("Constant", [], ["beta"], "n4")
    n_beta.attribute.append(beta_ref)
    aten_addmm = helper.make_function(
        TL, "aten_addmm", ["self", "mat1", "mat2"], ["return_val"],
        [node("MatMul", ["mat1", "mat2"], ["mat1_mat2"], "n0"),
         n_alpha,
         node("CastLike", ["alpha", "mat1_mat2"], ["alpha_0"], "n2"),
         node("Mul", ["mat1_mat2", "alpha_0"], ["scaled_mat1_mat2"], "n3"),
         n_beta,
         node("CastLike", ["beta", "self"], ["beta_0"], "n5"),
         node("Mul", ["self", "beta_0"], ["scaled_self"], "n6"),
         node("Add", ["scaled_self", "scaled_mat1_mat2"], ["return_val"], "n7")],
        [helper.make_opsetid("", 18)],
        attribute_protos=[helper.make_attribute("beta", 1.0), helper.make_attribute("alpha", 1.0)],
        doc_string="addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor")

    aten_relu = helper.make_function(
        TL, "aten_relu", ["self"], ["return_val"],
        [node("Relu", ["self"], ["return_val"], "n0")],
        [helper.make_opsetid("", 18)], doc_string="relu(Tensor self) -> Tensor")

    # aten_linear
    def empty_out(name):
        return helper.make_value_info(name, helper.make_empty_tensor_value_info(name).type)

    s_then = helper.make_graph(
        [node("Constant", [], ["axes"], "n0", value_ints=[0]),
         node("Unsqueeze", ["bias", "axes"], ["bias_u"], "n1")],
        "thenGraph_2", [], [empty_out("bias_u")])
    s_else = helper.make_graph(
        [node("Identity", ["bias"], ["bias_i"], "n0")],
        "elseGraph_2", [], [empty_out("bias_i")])
    addmm_call = node("aten_addmm", ["bias_1d", "input", "wt"], ["addmm_out"], "n1", domain=TL)
    addmm_call.attribute.extend([
        helper.make_attribute_ref("alpha", helper.AttributeProto.FLOAT, ref_attr_name="alpha"),
        helper.make_attribute_ref("beta", helper.AttributeProto.FLOAT, ref_attr_name="beta")])
    l_then = helper.make_graph(
        [node("aten_t", ["weight"], ["wt"], "n0", domain=TL), addmm_call],
        "thenGraph_8", [], [empty_out("addmm_out")])
    l_else = helper.make_graph(
        [node("Transpose", ["weight"], ["weight_transposed"], "n0", perm=[1, 0]),
         node("MatMul", ["input", "weight_transposed"], ["mul"], "n1"),
         node("Add", ["mul", "bias_1d"], ["result_else"], "n2")],
        "elseGraph_8", [], [empty_out("result_else")])
    aten_linear = helper.make_function(
        TL, "aten_linear", ["input", "weight", "bias"], ["return_val"],
        [node("IsScalar", ["bias"], ["bias_is_scalar"], "n0", domain=TLC),
         node("If", ["bias_is_scalar"], ["bias_1d"], "n1", then_branch=s_then, else_branch=s_else),
         node("Rank", ["input"], ["rank"], "n2", domain=TLC),
         const_t("int64_2", np.int64(2)),
         node("CastLike", ["int64_2", "rank"], ["int64_2_cast"], "n4"),
         node("Equal", ["rank", "int64_2_cast"], ["is_2d"], "n5"),
         node("If", ["is_2d"], ["return_val"], "n6", then_branch=l_then, else_branch=l_else)],
        tl_imports,
        attribute_protos=[helper.make_attribute("alpha", 1.0), helper.make_attribute("beta", 1.0)],
        doc_string="linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor")

    # Order as an exporter writes them: callees after callers is allowed; keep callers first.
    return [aten_linear, aten_relu, aten_addmm, aten_t, rank, is_scalar]


def _torchlib_mlp(name, seed, x_shape):
    rng = np.random.default_rng(seed)
    k, h, n = 64, 32, 10
    # PyTorch layout: weight [out, in]
    w1, b1 = weights(rng, k, h).T.copy(), normal(rng, (h,), 0.5)
    w2, b2 = weights(rng, h, n).T.copy(), normal(rng, (n,), 0.5)
    inits = [init("fc1.weight", w1), init("fc1.bias", b1),
             init("fc2.weight", w2), init("fc2.bias", b2)]
    call2 = node("aten_linear", ["relu", "fc2.weight", "fc2.bias"], ["output"], "node_linear_1",
                 domain=TL, alpha=0.5, beta=2.0)
    nodes = [
        # first call: alpha/beta from the function's default attributes
        node("aten_linear", ["input", "fc1.weight", "fc1.bias"], ["linear"], "node_linear", domain=TL),
        node("aten_relu", ["linear"], ["relu"], "node_relu", domain=TL),
        # second call: explicit alpha/beta, passed on by reference to aten_addmm
        call2,
    ]
    out_shape = tuple(x_shape[:-1]) + (n,)
    mdl = model(nodes, [vi("input", x_shape)], [vi("output", out_shape)], inits, opset=18,
                functions=torchlib_functions_protos(), extra_opsets=[(TL, 1), (TLC, 1)],
                ir_version=10)
    x = normal(rng, x_shape)
    return mdl, {"input": x}


@case
def torchlib_functions():
    mdl, feed = _torchlib_mlp("torchlib_functions", 111, (2, 64))
    return "torchlib_functions", mdl, feed, {
        "ops_after": {"Gemm": 2},
        "note": "both If(Rank == 2) take the then-branch (aten_t + aten_addmm); the second "
                "layer has alpha=0.5, beta=2.0 (attribute references); Relu fused into Gemm 1"}


@case
def torchlib_functions_3d():
    mdl, feed = _torchlib_mlp("torchlib_functions_3d", 112, (2, 3, 64))
    return "torchlib_functions_3d", mdl, feed, {
        "ops_after": {"Gemm": 2},
        "note": "rank-3 input: If(Rank == 2) takes the else-branch (Transpose+MatMul+Add), "
                "which becomes a Gemm on the flattened [6, 64] view; the second layer's "
                "alpha/beta are unused on this path"}


# --------------------------------------------------------------------------
# recursion (must be refused)
# --------------------------------------------------------------------------

@case
def recursive_function():
    f = helper.make_function(
        "pkg.test", "Recurse", ["x"], ["y"],
        [node("Recurse", ["x"], ["t"], "n0", domain="pkg.test"),
         node("Relu", ["t"], ["y"], "n1")],
        [helper.make_opsetid("", 17), helper.make_opsetid("pkg.test", 1)])
    mdl = model([node("Recurse", ["x"], ["y"], "call", domain="pkg.test")],
                [vi("x", (2, 3))], [vi("y", (2, 3))], functions=[f],
                extra_opsets=[("pkg.test", 1)])
    return "recursive_function", mdl, None, {
        "refuse": True,
        "error": "node 'n0' (Recurse, domain pkg.test): function 'Recurse' calls itself "
                 "(recursion is not allowed in ONNX functions)",
        "note": "pkg.test::Recurse calls itself: onnx2c must exit 1 with one error line "
                "naming the recursion (no crash, no endless inlining)"}


@case
def recursive_function_mutual():
    imports = [helper.make_opsetid("", 17), helper.make_opsetid("pkg.test", 1)]
    ping = helper.make_function("pkg.test", "Ping", ["x"], ["y"],
                                [node("Pong", ["x"], ["y"], "n0", domain="pkg.test")], imports)
    pong = helper.make_function("pkg.test", "Pong", ["x"], ["y"],
                                [node("Relu", ["x"], ["t"], "n0"),
                                 node("Ping", ["t"], ["y"], "n1", domain="pkg.test")], imports)
    mdl = model([node("Ping", ["x"], ["y"], "call", domain="pkg.test")],
                [vi("x", (2, 3))], [vi("y", (2, 3))], functions=[ping, pong],
                extra_opsets=[("pkg.test", 1)])
    return "recursive_function_mutual", mdl, None, {
        "refuse": True,
        "error": "node 'n1' (Ping, domain pkg.test): function 'Ping' calls itself "
                 "(recursion is not allowed in ONNX functions)",
        "note": "Ping -> Pong -> Ping: mutual recursion must be refused like direct recursion"}


# --------------------------------------------------------------------------
# Transpose / Expand
# --------------------------------------------------------------------------

@case
def transpose_gemm():
    rng = np.random.default_rng(121)
    w1 = weights(rng, 16, 8).T.copy()          # [8, 16]: PyTorch layout, transposed by a node
    b1 = normal(rng, (8,))
    w2 = weights(rng, 5, 6)                    # [5, 6]
    nodes = [
        node("Transpose", ["W1"], ["W1_t"], "transpose_w1", perm=[1, 0]),   # [16, 8]
        node("Gemm", ["x", "W1_t", "b1"], ["h"], "gemm1"),                  # [4, 16] x [16, 8]
        node("Transpose", ["y"], ["y_t"], "transpose_y", perm=[1, 0]),      # input [5, 8] -> [8, 5]
        node("MatMul", ["h", "y_t"], ["hy"], "matmul"),                     # [4, 8] x [8, 5]
        node("Transpose", ["W2"], ["W2_t"], "transpose_w2", perm=[1, 0]),   # [6, 5]
        node("Gemm", ["hy", "W2_t"], ["out"], "gemm2", transB=1),           # [4, 5] x [6, 5]^T
    ]
    mdl = model(nodes, [vi("x", (4, 16)), vi("y", (5, 8))], [vi("out", (4, 6))],
                [init("W1", w1), init("b1", b1), init("W2", w2)])
    feed = {"x": normal(rng, (4, 16)), "y": normal(rng, (5, 8))}
    return "transpose_gemm", mdl, feed, {
        "ops_after": {"Gemm": 3},
        "note": "Transpose(W1 constant) -> Gemm B: absorbed (transB=1 or W1 transposed at "
                "compile time); Transpose(y, a graph input) -> MatMul B: Gemm with transB=1 and "
                "no C; Transpose(W2) -> Gemm(transB=1): the two transposes cancel"}


@case
def transpose_expand_gemm():
    rng = np.random.default_rng(122)
    m_, k, n = 4, 16, 8
    w = weights(rng, k, n).T.copy()            # PyTorch layout [out, in]
    b = normal(rng, (n,))
    nodes = [
        node("Transpose", ["weight"], ["weight_t"], "transpose", perm=[1, 0]),
        node("Expand", ["bias", "shape"], ["bias_e"], "expand"),
        node("Gemm", ["x", "weight_t", "bias_e"], ["y"], "gemm", alpha=1.0, beta=1.0),
    ]
    mdl = model(nodes, [vi("x", (m_, k))], [vi("y", (m_, n))],
                [init("weight", w), init("bias", b),
                 init("shape", np.array([m_, n], dtype=np.int64))])
    return "transpose_expand_gemm", mdl, {"x": normal(rng, (m_, k))}, {
        "ops_after": {"Gemm": 1},
        "note": "the old TorchScript Linear: Transpose absorbed (transB), Expand of the "
                "bias removed (Gemm broadcasts C)"}


@case
def expand_add():
    rng = np.random.default_rng(123)
    nodes = [node("Expand", ["bias", "shape"], ["bias_e"], "expand"),
             node("Add", ["x", "bias_e"], ["y"], "add")]
    mdl = model(nodes, [vi("x", (4, 8))], [vi("y", (4, 8))],
                [init("bias", normal(rng, (8,))),
                 init("shape", np.array([4, 8], dtype=np.int64))])
    return "expand_add", mdl, {"x": normal(rng, (4, 8))}, {
        "ops_after": {"Add": 1},
        "note": "Expand result [4, 8] == the broadcast shape of the Add: Expand removed, "
                "the Add broadcasts bias [8] itself"}


# --------------------------------------------------------------------------
# no-ops
# --------------------------------------------------------------------------

@case
def identity_chain():
    rng = np.random.default_rng(131)
    nodes = [
        node("Identity", ["x"], ["a"], "identity0"),
        node("Dropout", ["a"], ["b"], "dropout0"),                                # no ratio, no training_mode
        node("Mul", ["b", "one"], ["c"], "mul_one"),                              # scalar 1
        node("Relu", ["c"], ["r"], "relu"),
        node("Add", ["r", "zero"], ["d"], "add_zero"),                            # [8] zeros
        node("Dropout", ["d", "ratio", "training_mode"], ["e", "mask"], "dropout1"),  # inference
        node("Mul", ["ones", "e"], ["f"], "ones_mul"),                            # [1, 8] ones, swapped
        node("Identity", ["f"], ["y"], "identity1"),
    ]
    inits = [init("one", np.float32(1.0)), init("zero", np.zeros(8, np.float32)),
             init("ratio", np.float32(0.5)), init("training_mode", np.array(False)),
             init("ones", np.ones((1, 8), np.float32))]
    mdl = model(nodes, [vi("x", (4, 8))], [vi("y", (4, 8))], inits)
    return "identity_chain", mdl, {"x": normal(rng, (4, 8))}, {
        "ops_after": {"Relu": 1},
        "note": "Identity, Dropout (no training_mode, and training_mode=false with an unused "
                "mask output), Mul by 1 (scalar and [1, 8]), Add of +0.0 [8] all removed; "
                "only Relu stays. Caveat: Add(x, +0.0) maps -0.0 to +0.0, so removing it "
                "changes the sign of zero outputs only (allclose-equal, not --exact)"}


@case
def transpose_unit_axes():
    # What the exporters wrap an LSTM's or GRU's Y in: [1,T,H] -> [T,1,H] before it, and
    # [T,1,1,H] -> [T,1,1,H] (perm 0,2,1,3), [T,1,H] -> [1,T,H] after it. Each keeps every
    # element at its offset; the last Transpose swaps T and H and must stay.
    rng = np.random.default_rng(132)
    nodes = [
        node("Transpose", ["x"], ["t"], "to_time_major", perm=[1, 0, 2]),   # [6, 1, 8]
        node("Relu", ["t"], ["r"], "relu"),
        node("Unsqueeze", ["r", "axis1"], ["r4"], "unsqueeze"),               # [6, 1, 1, 8]
        node("Transpose", ["r4"], ["s4"], "swap_units", perm=[0, 2, 1, 3]),  # [6, 1, 1, 8]
        node("Squeeze", ["s4", "axis1"], ["s"], "squeeze"),                   # [6, 1, 8]
        node("Transpose", ["s"], ["y"], "to_batch_major", perm=[1, 0, 2]),  # [1, 6, 8]
        node("Transpose", ["r"], ["z"], "swap_time_units", perm=[2, 1, 0]),  # [8, 1, 6]
    ]
    mdl = model(nodes, [vi("x", (1, 6, 8))], [vi("y", (1, 6, 8)), vi("z", (8, 1, 6))],
                [init("axis1", np.array([1], dtype=np.int64))])
    return "transpose_unit_axes", mdl, {"x": normal(rng, (1, 6, 8))}, {
        "ops_after": {"Relu": 1, "Transpose": 1},
        "note": "the three Transposes that move only axes of size 1 become views (Reshape); "
                "the one that swaps the axes of 6 and 8 stays"}


# --------------------------------------------------------------------------
# MatMul + Add, 3-D
# --------------------------------------------------------------------------

@case
def matmul_add_3d():
    rng = np.random.default_rng(141)
    nodes = [node("MatMul", ["x", "W"], ["mm"], "matmul"),
             node("Add", ["mm", "bias"], ["y"], "add")]
    mdl = model(nodes, [vi("x", (2, 3, 4))], [vi("y", (2, 3, 5))],
                [init("W", weights(rng, 4, 5)), init("bias", normal(rng, (5,)))])
    return "matmul_add_3d", mdl, {"x": normal(rng, (2, 3, 4))}, {
        "ops_after": {"Gemm": 1},
        "note": "MatMul [2,3,4] x constant [4,5] + [5]: one Gemm on the flattened [6,4] view "
                "(Reshapes, if any, are views)"}


# --------------------------------------------------------------------------
# BatchNormalization and per-channel Mul/Add after Conv and Gemm
# --------------------------------------------------------------------------

def _bn_params(rng, c):
    return [init("bn.scale", (rng.random(c) + 0.5).astype(np.float32)),
            init("bn.B", normal(rng, (c,), 0.2)),
            init("bn.mean", normal(rng, (c,), 0.2)),
            init("bn.var", (rng.random(c) * 1.5 + 0.25).astype(np.float32))]


def _conv_bn(name, seed, bias):
    rng = np.random.default_rng(seed)
    cin, cout = 3, 4
    inits = [init("conv.W", normal(rng, (cout, cin, 3, 3), 1 / np.sqrt(cin * 9)))]
    if bias:
        inits.append(init("conv.b", normal(rng, (cout,), 0.2)))
    inits += _bn_params(rng, cout)
    nodes = [node("Conv", ["x", "conv.W"] + (["conv.b"] if bias else []), ["c"], "conv",
                  kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             node("BatchNormalization", ["c", "bn.scale", "bn.B", "bn.mean", "bn.var"], ["y"],
                  "bn", epsilon=1e-5)]
    mdl = model(nodes, [vi("x", (1, cin, 8, 8))], [vi("y", (1, cout, 8, 8))], inits)
    return name, mdl, {"x": normal(rng, (1, cin, 8, 8))}, {
        "ops_after": {"Conv": 1},
        "note": "BatchNormalization folded into the Conv weights and bias"
                + ("" if bias else " (the Conv has no bias input: BN creates one)")}


@case
def conv_bn():
    return _conv_bn("conv_bn", 151, bias=True)


@case
def conv_bn_nobias():
    return _conv_bn("conv_bn_nobias", 152, bias=False)


@case
def conv_mul_add():
    rng = np.random.default_rng(153)
    cin, cout = 3, 4
    nodes = [node("Conv", ["x", "conv.W", "conv.b"], ["c"], "conv",
                  kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             node("Mul", ["c", "scale"], ["s"], "mul"),
             node("Add", ["s", "shift"], ["y"], "add")]
    inits = [init("conv.W", normal(rng, (cout, cin, 3, 3), 1 / np.sqrt(cin * 9))),
             init("conv.b", normal(rng, (cout,), 0.2)),
             init("scale", (rng.random((cout, 1, 1)) + 0.5).astype(np.float32)),
             init("shift", normal(rng, (cout, 1, 1), 0.3))]
    mdl = model(nodes, [vi("x", (1, cin, 8, 8))], [vi("y", (1, cout, 8, 8))], inits)
    return "conv_mul_add", mdl, {"x": normal(rng, (1, cin, 8, 8))}, {
        "ops_after": {"Conv": 1},
        "note": "per-channel constant Mul [4,1,1] and Add [4,1,1] folded into the Conv"}


@case
def gemm_bn():
    rng = np.random.default_rng(154)
    k, n = 16, 8
    nodes = [node("Gemm", ["x", "W", "b"], ["h"], "gemm", transB=1),
             node("BatchNormalization", ["h", "bn.scale", "bn.B", "bn.mean", "bn.var"], ["y"],
                  "bn", epsilon=1e-5)]
    inits = [init("W", weights(rng, k, n).T.copy()), init("b", normal(rng, (n,)))] + _bn_params(rng, n)
    mdl = model(nodes, [vi("x", (4, k))], [vi("y", (4, n))], inits)
    return "gemm_bn", mdl, {"x": normal(rng, (4, k))}, {
        "ops_after": {"Gemm": 1},
        "note": "BatchNormalization over [N, C] after Gemm folded into W and bias"}


@case
def gemm_mul_add():
    rng = np.random.default_rng(155)
    k, n = 16, 8
    nodes = [node("Gemm", ["x", "W", "b"], ["h"], "gemm", transB=1),
             node("Mul", ["scale", "h"], ["s"], "mul"),
             node("Add", ["s", "shift"], ["y"], "add")]
    inits = [init("W", weights(rng, k, n).T.copy()), init("b", normal(rng, (n,))),
             init("scale", (rng.random(n) + 0.5).astype(np.float32)),
             init("shift", normal(rng, (n,), 0.3))]
    mdl = model(nodes, [vi("x", (4, k))], [vi("y", (4, n))], inits)
    return "gemm_mul_add", mdl, {"x": normal(rng, (4, k))}, {
        "ops_after": {"Gemm": 1},
        "note": "per-column constant Mul [8] (operands swapped) and Add [8] folded into W and bias"}


# --------------------------------------------------------------------------
# epilogues: Gemm(x [4,32], W [16,32] transB=1, b [16]) followed by one op
# --------------------------------------------------------------------------

M, K, N = 4, 32, 16


def _gemm_front(rng, gain=4.0):
    """Gemm inputs scaled so that the pre-activation h has a std of about 4 (covers ReLU6's
    upper bound, HardSwish's +-3 knees, and the saturating ranges of Sigmoid/Tanh)."""
    w = weights(rng, K, N, gain).T.copy()
    b = normal(rng, (N,), 0.5)
    return [init("W", w), init("b", b)], node("Gemm", ["x", "W", "b"], ["h"], "gemm", transB=1)


def _epilogue(act, seed, tail, extra_inits=(), extra_inputs=(), opset=17, note=""):
    rng = np.random.default_rng(seed)
    inits, gemm = _gemm_front(rng)
    mdl = model([gemm] + tail, [vi("x", (M, K))] + [vi(n_, s) for n_, s in extra_inputs],
                [vi("y", (M, N))], inits + list(extra_inits), opset=opset)
    feed = {"x": normal(rng, (M, K))}
    for n_, s in extra_inputs:
        feed[n_] = normal(rng, s)
    return f"epilogue_{act}", mdl, feed, {"ops_after": {"Gemm": 1}, "note": note}


@case
def epilogue_relu():
    return _epilogue("relu", 161, [node("Relu", ["h"], ["y"], "act")], note="Relu fused")


@case
def epilogue_leakyrelu():
    return _epilogue("leakyrelu", 162, [node("LeakyRelu", ["h"], ["y"], "act", alpha=0.1)],
                     note="LeakyRelu(alpha=0.1) fused")


@case
def epilogue_clip():
    return _epilogue("clip", 163, [node("Clip", ["h", "min", "max"], ["y"], "act")],
                     extra_inits=[init("min", np.float32(0.0)), init("max", np.float32(6.0))],
                     note="Clip(0, 6) (ReLU6; min/max are scalar initializers) fused")


@case
def epilogue_sigmoid():
    return _epilogue("sigmoid", 164, [node("Sigmoid", ["h"], ["y"], "act")], note="Sigmoid fused")


@case
def epilogue_tanh():
    return _epilogue("tanh", 165, [node("Tanh", ["h"], ["y"], "act")], note="Tanh fused")


@case
def epilogue_gelu():
    return _epilogue("gelu", 166, [node("Gelu", ["h"], ["y"], "act")], opset=20,
                     note="Gelu-20 (approximate='none', erf form) fused")


@case
def epilogue_gelu_tanh():
    return _epilogue("gelu_tanh", 167, [node("Gelu", ["h"], ["y"], "act", approximate="tanh")],
                     opset=20, note="Gelu-20 approximate='tanh' fused")


@case
def epilogue_gelu_erf_decomposed():
    # The TorchScript exporter's erf GELU (opset < 20), node for node:
    # Div(x, 1.4142135) -> Erf -> Add(., 1) -> Mul(x, .) -> Mul(., 0.5)
    tail = [const_t("sqrt2", np.float32(1.4142135381698608)),
            node("Div", ["h", "sqrt2"], ["d"], "div"),
            node("Erf", ["d"], ["e"], "erf"),
            const_t("one", np.float32(1.0)),
            node("Add", ["e", "one"], ["e1"], "add"),
            node("Mul", ["h", "e1"], ["p"], "mul"),
            const_t("half", np.float32(0.5)),
            node("Mul", ["p", "half"], ["y"], "mul_half")]
    return _epilogue("gelu_erf_decomposed", 168, tail,
                     note="0.5*x*(1+Erf(x/sqrt2)) as the TorchScript exporter writes it: "
                          "recognised as Gelu and fused")


@case
def epilogue_gelu_erf_decomposed_alt():
    # The raw dynamo/torchlib order (opset 18, see transformer_layer_dynamo_raw):
    # Div(x, sqrt2) -> Erf -> Add(., 1) -> Mul(0.5, .) -> Mul(x, .)
    tail = [node("Div", ["h", "sqrt2"], ["d"], "div"),
            node("Erf", ["d"], ["e"], "erf"),
            node("Add", ["e", "one"], ["e1"], "add"),
            node("Mul", ["half", "e1"], ["p"], "mul_half"),
            node("Mul", ["h", "p"], ["y"], "mul")]
    return _epilogue("gelu_erf_decomposed_alt", 169, tail,
                     extra_inits=[init("sqrt2", np.float32(1.4142135381698608)),
                                  init("one", np.float32(1.0)), init("half", np.float32(0.5))],
                     note="0.5 multiplied first, constants as initializers (torchlib order): "
                          "recognised as Gelu and fused")


@case
def epilogue_gelu_tanh_decomposed():
    # The TorchScript exporter's tanh GELU (opset < 20), node for node (see mlp_gelu_tanh_opset17).
    tail = [node("Mul", ["h", "h"], ["x2"], "mul"),
            node("Mul", ["h", "x2"], ["x3"], "mul_1"),
            const_t("c0", np.float32(0.044715)),
            node("Mul", ["c0", "x3"], ["t0"], "mul_2"),
            node("Add", ["h", "t0"], ["t1"], "add"),
            const_t("c1", np.float32(0.7978845834732056)),
            node("Mul", ["c1", "t1"], ["t2"], "mul_3"),
            node("Tanh", ["t2"], ["t3"], "tanh"),
            const_t("one", np.float32(1.0)),
            node("Add", ["one", "t3"], ["t4"], "add_1"),
            node("Mul", ["h", "t4"], ["t5"], "mul_4"),
            const_t("half", np.float32(0.5)),
            node("Mul", ["half", "t5"], ["y"], "mul_5")]
    return _epilogue("gelu_tanh_decomposed", 170, tail,
                     note="0.5*x*(1+Tanh(sqrt(2/pi)*(x+0.044715*x^3))) as the TorchScript "
                          "exporter writes it: recognised as tanh-Gelu and fused")


@case
def epilogue_hardswish():
    return _epilogue("hardswish", 171, [node("HardSwish", ["h"], ["y"], "act")],
                     note="HardSwish fused")


@case
def epilogue_swish_mul():
    # SiLU as the dynamo exporter writes it: h * Sigmoid(h)
    tail = [node("Sigmoid", ["h"], ["s"], "sigmoid"), node("Mul", ["h", "s"], ["y"], "mul")]
    return _epilogue("swish_mul", 174, tail,
                     note="h * Sigmoid(h) rewritten to Swish (same bits) and fused")


@case
def epilogue_swish_mul_swapped():
    tail = [node("Sigmoid", ["h"], ["s"], "sigmoid"), node("Mul", ["s", "h"], ["y"], "mul")]
    return _epilogue("swish_mul_swapped", 175, tail,
                     note="Sigmoid(h) * h rewritten to Swish (same bits) and fused")


@case
def se_block():
    # A squeeze-excite block as torchvision's EfficientNet writes it (dynamo export): the
    # channel means (ReduceMean), a 1x1 Conv at 1x1 spatial, SiLU, a 1x1 Conv, Sigmoid, and
    # the Mul that scales each channel's plane
    rng = np.random.default_rng(176)
    c, r = 32, 8
    inits = [init("w1", normal(rng, (r, c, 1, 1), 0.4)), init("b1", normal(rng, (r,), 0.5)),
             init("w2", normal(rng, (c, r, 1, 1), 0.6)), init("b2", normal(rng, (c,), 0.5))]
    nodes = [node("ReduceMean", ["x"], ["m"], "squeeze", axes=[2, 3], keepdims=1),
             node("Conv", ["m", "w1", "b1"], ["h"], "reduce"),
             node("Sigmoid", ["h"], ["hs"], "silu_sigmoid"),
             node("Mul", ["h", "hs"], ["a"], "silu"),
             node("Conv", ["a", "w2", "b2"], ["g"], "expand"),
             node("Sigmoid", ["g"], ["s"], "gate"),
             node("Mul", ["x", "s"], ["y"], "scale")]
    mdl = model(nodes, [vi("x", (1, c, 6, 6))], [vi("y", (1, c, 6, 6))], inits)
    feed = {"x": normal(rng, (1, c, 6, 6), 2.0)}
    return "se_block", mdl, feed, {
        "ops_after": {"ReduceMean": 1, "Conv": 2, "Mul": 1},
        "note": "the two 1x1 convs at 1x1 spatial run as packed GEMVs; SiLU (Mul of Sigmoid) "
                "becomes Swish and Sigmoid fuse into them; the channel-broadcast Mul stays"}


@case
def concat_fire():
    # SqueezeNet's fire module: a 1x1 squeeze conv, two expand convs of its output (1x1 here
    # both, so no conv needs work memory and the arena is the tensors alone), their Concat on
    # the channels, read by a 1x1 conv. The expand convs write their slices of the Concat's
    # output, so it copies nothing. Bytes (fused, 64 positions): s 1024, e1 and e2 2048 each,
    # c 4096; c's buffer is alive from e1's step: s + c = 5120 at steps 1 and 2, the arena;
    # copying would need e1 + e2 + c = 8192 at the Concat, the node-order bound.
    rng = np.random.default_rng(177)
    cin, sq, ex = 8, 4, 8
    inits = [init("ws", normal(rng, (sq, cin, 1, 1), 0.5)), init("bs", normal(rng, (sq,), 0.2)),
             init("w1", normal(rng, (ex, sq, 1, 1), 0.5)), init("b1", normal(rng, (ex,), 0.2)),
             init("w2", normal(rng, (ex, sq, 1, 1), 0.5)), init("b2", normal(rng, (ex,), 0.2)),
             init("wo", normal(rng, (4, 2 * ex, 1, 1), 0.3)), init("bo", normal(rng, (4,), 0.2))]
    nodes = [node("Conv", ["x", "ws", "bs"], ["s0"], "squeeze"),
             node("Relu", ["s0"], ["s"], "squeeze_relu"),
             node("Conv", ["s", "w1", "b1"], ["e10"], "expand1"),
             node("Relu", ["e10"], ["e1"], "expand1_relu"),
             node("Conv", ["s", "w2", "b2"], ["e20"], "expand2"),
             node("Relu", ["e20"], ["e2"], "expand2_relu"),
             node("Concat", ["e1", "e2"], ["c"], "concat", axis=1),
             node("Conv", ["c", "wo", "bo"], ["y"], "out")]
    mdl = model(nodes, [vi("x", (1, cin, 8, 8))], [vi("y", (1, 4, 8, 8))], inits)
    return "concat_fire", mdl, {"x": normal(rng, (1, cin, 8, 8))}, {
        "ops_after": {"Conv": 4, "Concat": 1},
        "report": {"arena_bytes": 5120, "arena_lower_bound_bytes": 5120,
                   "node_order_bound_bytes": 8192, "arena_in_slice": 2},
        "note": "the expand convs write their slices of the Concat's output (no copy): arena "
                "5120 bytes (squeeze output + Concat output) against 8192 with copies"}


def _concat_fire(p, x):
    s = _relu(_conv1x1(x, p["ws"], p["bs"]))
    c = np.concatenate([_relu(_conv1x1(s, p["w1"], p["b1"])),
                        _relu(_conv1x1(s, p["w2"], p["b2"]))], axis=1)
    return _conv1x1(c, p["wo"], p["bo"])


@case
def dw_residual():
    # A depthwise 3x3 conv, ReLU and a residual Add of the graph input: the case where
    # --layout=auto keeps the model's layout for RAM. Channels-last needs the input transposed
    # (the residual reads it) and the output transposed back: both copies, 18432 bytes each,
    # are alive with the conv's, over the node-order bound (the conv's output and the ReLU's,
    # 36864 bytes); NCHW fuses ReLU and the Add into the conv and needs only its work memory.
    rng = np.random.default_rng(178)
    c, hw = 32, 12
    inits = [init("w", normal(rng, (c, 1, 3, 3), 0.5)), init("b", normal(rng, (c,), 0.2))]
    nodes = [node("Conv", ["x", "w", "b"], ["d"], "depthwise", group=c, kernel_shape=[3, 3],
                  pads=[1, 1, 1, 1]),
             node("Relu", ["d"], ["r"], "relu"),
             node("Add", ["r", "x"], ["y"], "residual")]
    mdl = model(nodes, [vi("x", (1, c, hw, hw))], [vi("y", (1, c, hw, hw))], inits)
    return "dw_residual", mdl, {"x": normal(rng, (1, c, hw, hw))}, {
        "ops_after": {"Conv": 1},
        "report": {"node_order_bound_bytes": 36864},
        "note": "ReLU and the residual Add fuse into the depthwise conv; --layout=auto keeps "
                "NCHW, whose arena is the conv's work memory, where channels-last would need "
                "55296 bytes (tests/run_cli_test.sh compares auto's C with --layout=nchw's)"}


def _dw_residual(p, x):
    c, hw = x.shape[1], x.shape[2]
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    d = np.zeros_like(x)
    for i in range(3):
        for j in range(3):
            d += xp[:, :, i:i + hw, j:j + hw] * p["w"][:, 0, i, j].reshape(1, c, 1, 1)
    return _relu(d + p["b"].reshape(1, c, 1, 1)) + x


@case
def epilogue_residual_add():
    return _epilogue("residual_add", 172, [node("Add", ["h", "r"], ["y"], "residual")],
                     extra_inputs=[("r", (M, N))],
                     note="Add of a second graph input of the same shape [4,16] fused into "
                          "the Gemm's epilogue")


@case
def epilogue_bias_add():
    rng = np.random.default_rng(173)
    w = weights(rng, K, N, 4.0).T.copy()
    nodes = [node("Gemm", ["x", "W"], ["h"], "gemm", transB=1),
             node("Add", ["bias", "h"], ["a"], "bias_add"),
             node("Relu", ["a"], ["y"], "act")]
    mdl = model(nodes, [vi("x", (M, K))], [vi("y", (M, N))],
                [init("W", w), init("bias", normal(rng, (N,), 0.5))])
    return "epilogue_bias_add", mdl, {"x": normal(rng, (M, K))}, {
        "ops_after": {"Gemm": 1},
        "note": "Gemm without C, then Add(bias [16], h) (bias first) and Relu: bias and Relu "
                "both inside the one Gemm"}


# --------------------------------------------------------------------------
# elementwise chain
# --------------------------------------------------------------------------

@case
def elementwise_chain():
    rng = np.random.default_rng(181)
    nodes = [node("Mul", ["x", "c"], ["a"], "mul_c"),
             node("Add", ["a", "d"], ["b"], "add_d"),
             node("Sigmoid", ["b"], ["s"], "sigmoid"),
             node("Mul", ["s", "x"], ["y"], "mul_x")]
    mdl = model(nodes, [vi("x", (4, 16))], [vi("y", (4, 16))],
                [init("c", np.float32(1.5)), init("d", normal(rng, (16,), 0.5))])
    return "elementwise_chain", mdl, {"x": normal(rng, (4, 16), 2.0)}, {
        "ops_after": None,
        "fused_loops": 1,
        "note": "Mul(scalar c), Add(d [16]), Sigmoid, Mul(x) over one shape [4,16]: one fused "
                "elementwise loop (4 ops, 1 kernel); how the report names it is the compiler's"}


@case
def elementwise_chain_tiled():
    # Large enough to be split into tiles of rows: operands that vary by row (full x, a
    # column c[128,1]) are offset per tile, those that do not (a row d[256], a scalar) are not.
    rng = np.random.default_rng(182)
    nodes = [node("Mul", ["x", "s"], ["a"], "mul_s"),
             node("Add", ["a", "d"], ["b"], "add_row"),
             node("Tanh", ["b"], ["t"], "tanh"),
             node("Sub", ["c", "t"], ["u"], "col_minus"),
             node("Mul", ["u", "x"], ["y"], "mul_x")]
    mdl = model(nodes, [vi("x", (128, 256)), vi("c", (128, 1))], [vi("y", (128, 256))],
                [init("s", np.float32(0.75)), init("d", normal(rng, (256,), 0.5))])
    return "elementwise_chain_tiled", mdl, {"x": normal(rng, (128, 256), 2.0),
                                            "c": normal(rng, (128, 1), 1.0)}, {
        "ops_after": None,
        "fused_loops": 1,
        "note": "Mul(scalar), Add(row [256]), Tanh, Sub(column [128,1] - t), Mul(x) over "
                "[128,256]: one node, emitted as a loop over tiles of rows"}


# --------------------------------------------------------------------------
# control flow: Loop and Scan with trip counts known at compile time (unrolled)
# --------------------------------------------------------------------------

def _graph(nodes, inputs, outputs, name):
    return helper.make_graph(nodes, name, inputs, outputs)


def _vi_t(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


@case
def loop_static_trip():
    # Loop with a constant trip count (an initializer) and a condition that folds to true:
    # a carried state h <- tanh(h * a + b), with every iteration's h as a scan output.
    rng = np.random.default_rng(191)
    body = _graph([node("Identity", ["cond_in"], ["cond_out"], "cond"),
                   node("Mul", ["h_in", "a"], ["ha"], "mul_a"),
                   node("Add", ["ha", "b"], ["hb"], "add_b"),
                   node("Tanh", ["hb"], ["h_out"], "tanh"),
                   node("Identity", ["h_out"], ["h_scan"], "scan")],
                  [_vi_t("iter", TensorProto.INT64, []), _vi_t("cond_in", TensorProto.BOOL, []),
                   vi("h_in", (3,))],
                  [_vi_t("cond_out", TensorProto.BOOL, []), vi("h_out", (3,)),
                   vi("h_scan", (3,))], "loop_body")
    nodes = [const_t("cond", np.array(True)),
             node("Loop", ["M", "cond", "h0"], ["h", "hs"], "loop", body=body)]
    mdl = model(nodes, [vi("h0", (3,))], [vi("h", (3,)), vi("hs", (4, 3))],
                [init("M", np.int64(4)), init("a", normal(rng, (3,))),
                 init("b", normal(rng, (3,), 0.5))])
    return "loop_static_trip", mdl, {"h0": normal(rng, (3,))}, {
        "ops_after": None, "ops_after_forbidden": ["Loop", "Scan"],
        "note": "Loop with trip count 4 (initializer), condition Constant true: unrolled into "
                "4 copies of the body, scan output stacked with Concat"}


@case
def loop_outer_scope():
    # The body reads outer-scope values: the graph input x (one row per iteration, Gather on
    # the iteration number) and the weight W; its condition iter < 2 folds per iteration, so
    # the loop stops after 3 of its 5 counted iterations.
    rng = np.random.default_rng(192)
    body = _graph([const_t("limit", np.int64(2)),
                   node("Less", ["iter", "limit"], ["cond_out"], "keep_going"),
                   node("Gather", ["x", "iter"], ["row"], "row", axis=0),
                   node("MatMul", ["h_in", "W"], ["hw"], "mm"),
                   node("Add", ["hw", "row"], ["hr"], "add_row"),
                   node("Relu", ["hr"], ["h_out"], "relu")],
                  [_vi_t("iter", TensorProto.INT64, []), _vi_t("cond_in", TensorProto.BOOL, []),
                   vi("h_in", (1, 3))],
                  [_vi_t("cond_out", TensorProto.BOOL, []), vi("h_out", (1, 3))], "loop_body")
    nodes = [node("Loop", ["M", "cond", "h0"], ["h"], "loop", body=body)]
    mdl = model(nodes, [vi("x", (5, 3)), vi("h0", (1, 3))], [vi("h", (1, 3))],
                [init("M", np.int64(5)), init("cond", np.array(True)),
                 init("W", weights(rng, 3, 3))])
    return "loop_outer_scope", mdl, {"x": normal(rng, (5, 3)), "h0": normal(rng, (1, 3))}, {
        "ops_after": None, "ops_after_forbidden": ["Loop", "Scan"],
        "note": "Loop body reading the outer x and W; condition Less(iter, 2) folds per "
                "iteration: 3 iterations unrolled"}


@case
def scan_sequence_axis():
    # Scan-9 over axis 1 (the sequence axis) of x [2,5,3], backwards, with a running sum as
    # state and every partial sum as scan output stacked again along axis 1.
    rng = np.random.default_rng(193)
    body = _graph([node("Mul", ["x_t", "half"], ["xh"], "mul"),
                   node("Add", ["s_in", "xh"], ["s_out"], "add"),
                   node("Identity", ["s_out"], ["y_t"], "scan")],
                  [vi("s_in", (2, 3)), vi("x_t", (2, 3))],
                  [vi("s_out", (2, 3)), vi("y_t", (2, 3))], "scan_body")
    nodes = [node("Scan", ["s0", "x"], ["s", "y"], "scan", body=body, num_scan_inputs=1,
                  scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1])]
    mdl = model(nodes, [vi("s0", (2, 3)), vi("x", (2, 5, 3))], [vi("s", (2, 3)), vi("y", (2, 5, 3))],
                [init("half", np.float32(0.5))])
    return "scan_sequence_axis", mdl, {"s0": normal(rng, (2, 3)), "x": normal(rng, (2, 5, 3))}, {
        "ops_after": None, "ops_after_forbidden": ["Loop", "Scan"],
        "note": "Scan over the sequence axis 1 in reverse: unrolled into 5 copies of the body"}


def _loop_static(p, h0):
    for _ in range(4):
        h0 = np.tanh(h0 * p["a"] + p["b"])
    return h0


def _loop_outer(p, x, h0):
    for i in range(3):
        h0 = _relu(h0 @ p["W"] + x[i])
    return h0


def _scan_seq(p, s0, x):
    for t in reversed(range(x.shape[1])):
        s0 = s0 + x[:, t] * 0.5
    return s0


# --------------------------------------------------------------------------
# Independent numpy references: every stored onnxruntime output must also match what the
# model is meant to compute, written out by hand (catches a wrongly built graph).
# --------------------------------------------------------------------------

def _relu(v):
    return np.maximum(v, 0)


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _gelu(v):
    from math import erf
    return 0.5 * v * (1 + np.vectorize(erf)(v / np.sqrt(2)))


def _gelu_tanh(v):
    return 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))


def _bn(p, c):
    shape = [1, -1] + [1] * (c.ndim - 2)
    r = lambda k: p[k].reshape(shape)  # noqa: E731
    return (c - r("bn.mean")) / np.sqrt(r("bn.var") + 1e-5) * r("bn.scale") + r("bn.B")


def _conv3x3(x, w, b=None):
    n, _, h, wd = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, w.shape[0], h, wd))
    for i in range(3):
        for j in range(3):
            out += np.einsum("nchw,oc->nohw", xp[:, :, i:i + h, j:j + wd], w[:, :, i, j])
    return out if b is None else out + b.reshape(1, -1, 1, 1)


def _silu(v):
    return v * _sigmoid(v)


def _conv1x1(x, w, b):
    return np.einsum("nchw,oc->nohw", x, w[:, :, 0, 0]) + b.reshape(1, -1, 1, 1)


def _se_block(p, x):
    h = _silu(_conv1x1(x.mean(axis=(2, 3), keepdims=True), p["w1"], p["b1"]))
    return x * _sigmoid(_conv1x1(h, p["w2"], p["b2"]))


def _gemm(p, x):
    return x @ p["W"].T + p["b"]


_ACTS = {
    "relu": _relu, "leakyrelu": lambda v: np.where(v > 0, v, 0.1 * v),
    "clip": lambda v: np.clip(v, 0, 6), "sigmoid": _sigmoid, "tanh": np.tanh,
    "gelu": _gelu, "gelu_tanh": _gelu_tanh, "gelu_erf_decomposed": _gelu,
    "gelu_erf_decomposed_alt": _gelu, "gelu_tanh_decomposed": _gelu_tanh,
    "hardswish": lambda v: v * np.clip(v + 3, 0, 6) / 6,
    "swish_mul": lambda v: v * _sigmoid(v), "swish_mul_swapped": lambda v: v * _sigmoid(v),
}

NUMPY_REFERENCE = {
    "addmm_castlike": lambda p, x: x @ p["W"] + p["bias"],
    "addmm_swapped": lambda p, x: 0.5 * (x @ p["W"]) + 2.0 * p["bias"],
    "addmm_nocast": lambda p, x: 0.25 * (x @ p["W"]) - 1.5 * p["bias"],
    "torchlib_functions": lambda p, x: 0.5 * (_relu(x @ p["fc1.weight"].T + p["fc1.bias"])
                                              @ p["fc2.weight"].T) + 2.0 * p["fc2.bias"],
    "torchlib_functions_3d": lambda p, x: (_relu(x @ p["fc1.weight"].T + p["fc1.bias"])
                                           @ p["fc2.weight"].T + p["fc2.bias"]),
    "transpose_gemm": lambda p, x, y: ((x @ p["W1"].T + p["b1"]) @ y.T) @ p["W2"],
    "transpose_expand_gemm": lambda p, x: x @ p["weight"].T + p["bias"],
    "expand_add": lambda p, x: x + p["bias"],
    "identity_chain": lambda p, x: _relu(x),
    "transpose_unit_axes": lambda p, x: _relu(x),
    "matmul_add_3d": lambda p, x: x @ p["W"] + p["bias"],
    "conv_bn": lambda p, x: _bn(p, _conv3x3(x, p["conv.W"], p["conv.b"])),
    "conv_bn_nobias": lambda p, x: _bn(p, _conv3x3(x, p["conv.W"])),
    "conv_mul_add": lambda p, x: _conv3x3(x, p["conv.W"], p["conv.b"]) * p["scale"] + p["shift"],
    "gemm_bn": lambda p, x: _bn(p, _gemm(p, x)),
    "gemm_mul_add": lambda p, x: _gemm(p, x) * p["scale"] + p["shift"],
    "epilogue_residual_add": lambda p, x, r: _gemm(p, x) + r,
    "se_block": _se_block,
    "concat_fire": _concat_fire,
    "dw_residual": _dw_residual,
    "epilogue_bias_add": lambda p, x: _relu(x @ p["W"].T + p["bias"]),
    "elementwise_chain": lambda p, x: _sigmoid(x * p["c"] + p["d"]) * x,
    "elementwise_chain_tiled": lambda p, x, c: (c - np.tanh(x * p["s"] + p["d"])) * x,
    "loop_static_trip": _loop_static,
    "loop_outer_scope": _loop_outer,
    "scan_sequence_axis": _scan_seq,
}
for _act, _f in _ACTS.items():
    NUMPY_REFERENCE[f"epilogue_{_act}"] = lambda p, x, _f=_f: _f(_gemm(p, x))


def check_numpy(name, mdl, feed, outputs):
    params = {t.name: numpy_helper.to_array(t).astype(np.float64)
              for t in mdl.graph.initializer if t.data_type == F32}
    want = NUMPY_REFERENCE[name](params, *[v.astype(np.float64) for v in feed.values()])
    got = outputs[0]
    if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
        raise SystemExit(f"error: {name}: onnxruntime output differs from the numpy reference "
                         f"(max abs err {np.max(np.abs(got - want)):.3g})")


# --------------------------------------------------------------------------

def main():
    names = set()
    only = set(sys.argv[1:])  # NAME...: write only these models
    for fn in CASES:
        name, mdl, feed, expected = fn()
        if only and name not in only:
            continue
        if name in names:
            raise SystemExit(f"error: duplicate model {name}")
        names.add(name)
        refuse = bool(expected.get("refuse"))
        outputs = fc.write_case(name, mdl, feed or {}, expected, check=not refuse,
                                reference=not refuse)
        if not refuse:
            check_numpy(name, mdl, feed, outputs)
        fc.print_summary(name, mdl)
    print(f"{len(names)} hand-built models in {fc.MODELS.relative_to(fc.HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
