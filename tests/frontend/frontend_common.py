"""Helpers shared by gen_exported.py, gen_handbuilt.py and describe.py.

Needs only onnx, numpy and onnxruntime (the versions of requirements.txt), never torch.

Every model is written as

    models/NAME/model.onnx
    models/NAME/test_data_set_0/input_<i>.pb    one per graph input without an initializer,
    models/NAME/test_data_set_0/output_<i>.pb   in graph order, named like the graph value
    models/NAME/expected.json                   what the frontend should reduce the graph to

(the ONNX backend-test layout plus expected.json). A model that must be refused has no
test_data_set_0. All paths are relative to this file.

Reference outputs: onnxruntime, CPUExecutionProvider, one thread, graph optimisations off
(so the reference computes the graph as written), run twice and required to be
bit-identical.
"""

import collections
import json
from pathlib import Path

import numpy as np
import onnx
from onnx import AttributeProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent  # tests/frontend
MODELS = HERE / "models"

MAX_FILE_BYTES = 500 * 1024


# --------------------------------------------------------------------------
# Reference outputs
# --------------------------------------------------------------------------

def run_ort(model_bytes, feed):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3  # no warnings about unused initializers of raw exporter output
    sess = ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])
    return sess.run(None, feed)


def reference_outputs(name, model_bytes, feed):
    """onnxruntime outputs, computed twice and required to be bit-identical."""
    y1 = run_ort(model_bytes, feed)
    y2 = run_ort(model_bytes, feed)
    for a, b in zip(y1, y2):
        if a.tobytes() != b.tobytes():
            raise SystemExit(f"error: {name}: onnxruntime outputs differ between two runs")
    return y1


# --------------------------------------------------------------------------
# Graph facts
# --------------------------------------------------------------------------

def graph_inputs(graph):
    """Graph inputs that are real inputs (no initializer of the same name)."""
    inits = {t.name for t in graph.initializer}
    return [v for v in graph.input if v.name not in inits]


def static_shape(value_info):
    dims = value_info.type.tensor_type.shape.dim
    if any(not d.HasField("dim_value") for d in dims):
        raise SystemExit(f"error: {value_info.name} has a non-static shape")
    return [d.dim_value for d in dims]


def _op_key(node):
    return f"{node.domain}::{node.op_type}" if node.domain else node.op_type


def _subgraphs(node):
    for a in node.attribute:
        if a.type == AttributeProto.GRAPH:
            yield a.name, a.g
        elif a.type == AttributeProto.GRAPHS:
            for i, g in enumerate(a.graphs):
                yield f"{a.name}[{i}]", g


def histograms(model):
    """{scope: Counter(op)} for the main graph, every function body and every subgraph.

    Scopes: "graph", "graph/<node>.then_branch", "fn <domain>::<name>",
    "fn <domain>::<name>/<node>.else_branch", ... Ops of a subgraph are counted in the
    subgraph's scope only.
    """
    out = collections.OrderedDict()

    def walk(scope, nodes):
        out[scope] = collections.Counter(_op_key(n) for n in nodes)
        for n in nodes:
            for attr, g in _subgraphs(n):
                walk(f"{scope}/{n.name or n.op_type}.{attr}", g.node)

    walk("graph", model.graph.node)
    for f in model.functions:
        walk(f"fn {f.domain}::{f.name}", f.node)
    return out


def format_counter(c):
    return ", ".join(f"{k} {v}" for k, v in sorted(c.items())) or "(empty)"


def _attr_str(a):
    if a.ref_attr_name:
        return f"{a.name}=@{a.ref_attr_name}"
    if a.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS):
        return None
    if a.type == AttributeProto.TENSOR:
        arr = numpy_helper.to_array(a.t)
        vals = "[" + ", ".join(str(v) for v in arr.ravel()[:6])
        more = "..." if arr.size > 6 else ""
        dt = onnx.TensorProto.DataType.Name(a.t.data_type)
        return f"{a.name}={dt}{list(arr.shape)}{vals}{more}]"
    v = helper.get_attribute_value(a)
    if isinstance(v, bytes):
        v = v.decode()
    if isinstance(v, float):
        v = str(np.float32(v))  # the float32 value, shortest repr (1e-05, not 9.99999974e-06)
    elif isinstance(v, list) and v and isinstance(v[0], float):
        v = "[" + ", ".join(str(np.float32(e)) for e in v) + "]"
    return f"{a.name}={v}"


def _vi(v):
    t = v.type.tensor_type
    dims = [d.dim_value if d.HasField("dim_value") else d.dim_param for d in t.shape.dim]
    return f"{v.name}: {onnx.TensorProto.DataType.Name(t.elem_type)}{dims}"


def _opsets(imports):
    return ", ".join(f"{o.domain or 'ai.onnx'}:{o.version}" for o in imports)


def describe(model, with_initializers=True):
    """Human-readable node list: ops, domains, attributes, subgraphs, function bodies."""
    lines = []
    g = model.graph
    lines.append(f"ir_version {model.ir_version}, opset_import {_opsets(model.opset_import)}")
    inits = {t.name for t in g.initializer}
    lines.append("inputs:  " + "; ".join(_vi(v) + (" (has initializer)" if v.name in inits else "")
                                         for v in g.input))
    lines.append("outputs: " + "; ".join(_vi(v) for v in g.output))
    if with_initializers and g.initializer:
        lines.append("initializers: " + "; ".join(
            f"{t.name}: {onnx.TensorProto.DataType.Name(t.data_type)}{list(t.dims)}"
            for t in g.initializer))

    def nodes(ns, ind):
        for n in ns:
            attrs = [s for s in (_attr_str(a) for a in n.attribute) if s]
            dom = f"{n.domain}::" if n.domain else ""
            lines.append(f"{ind}{dom}{n.op_type}({', '.join(n.input)}) -> {', '.join(n.output)}"
                         + (f"  {{{', '.join(attrs)}}}" if attrs else ""))
            for attr, sg in _subgraphs(n):
                sinits = ", ".join(t.name for t in sg.initializer)
                lines.append(f"{ind}  .{attr}: inputs [{', '.join(v.name for v in sg.input)}]"
                             f" outputs [{', '.join(v.name for v in sg.output)}]"
                             + (f" initializers [{sinits}]" if sinits else ""))
                nodes(sg.node, ind + "      ")

    nodes(g.node, "  ")
    for f in model.functions:
        defaults = [_attr_str(a) for a in f.attribute_proto]
        lines.append(f"function {f.domain}::{f.name}({', '.join(f.input)}) -> {', '.join(f.output)}"
                     f"  attributes [{', '.join(list(f.attribute) + defaults)}]"
                     f"  opset_import [{_opsets(f.opset_import)}]")
        nodes(f.node, "    ")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Writing a case
# --------------------------------------------------------------------------

def _write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    if len(data) > MAX_FILE_BYTES:
        raise SystemExit(f"error: {path} would be {len(data)} bytes (limit {MAX_FILE_BYTES})")
    path.write_bytes(data)


def write_case(name, model, inputs, expected, outputs=None, check=True, reference=True):
    """Write models/NAME/. inputs: {graph input name: array}, in graph-input order.

    expected: dict for expected.json (what the frontend should reduce the graph to).
    outputs: reference outputs to store; None = compute them with onnxruntime.
    check: True = onnx.checker with full_check, "basic" = without shape inference, False = none.
    reference=False: a model the compiler must refuse; no test data is written.
    Returns the list of reference outputs (empty without reference).
    """
    out_dir = MODELS / name
    if check:
        # check="basic": structure only, no shape inference (for exporter output whose
        # value_info contradicts the inferred shapes; see gen_exported.py)
        onnx.checker.check_model(model, full_check=(check != "basic"))
    data = model.SerializeToString()
    # Remove stale test data of an earlier run, then write everything anew.
    tds = out_dir / "test_data_set_0"
    if tds.exists():
        for p in sorted(tds.glob("*.pb")):
            p.unlink()
    _write(out_dir / "model.onnx", data)
    exp = dict(expected)
    exp["model"] = name
    _write(out_dir / "expected.json",
           (json.dumps(exp, indent=2, sort_keys=True) + "\n").encode())
    if not reference:
        if tds.exists():
            tds.rmdir()
        return []

    real = graph_inputs(model.graph)
    if [v.name for v in real] != list(inputs):
        raise SystemExit(f"error: {name}: inputs {list(inputs)} != graph inputs "
                         f"{[v.name for v in real]}")
    for v in real:
        if static_shape(v) != list(inputs[v.name].shape):
            raise SystemExit(f"error: {name}: input {v.name} shape {inputs[v.name].shape}")
    if outputs is None:
        outputs = reference_outputs(name, data, inputs)
    for i, (vname, arr) in enumerate(inputs.items()):
        _write(tds / f"input_{i}.pb", numpy_helper.from_array(arr, name=vname).SerializeToString())
    for i, (v, arr) in enumerate(zip(model.graph.output, outputs)):
        if static_shape(v) != list(arr.shape):
            raise SystemExit(f"error: {name}: output {v.name} shape {list(arr.shape)} "
                             f"!= declared {static_shape(v)}")
        _write(tds / f"output_{i}.pb", numpy_helper.from_array(arr, name=v.name).SerializeToString())
    return outputs


def print_summary(name, model):
    hs = histograms(model)
    size = len(model.SerializeToString())
    print(f"{name}: {size} bytes")
    for scope, c in hs.items():
        print(f"    {scope}: {format_counter(c)}")
