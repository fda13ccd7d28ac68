#!/usr/bin/env python3
"""Writes the inputs of the negative tests (run_negative.py) into OUTDIR.

    make_bad_models.py OUTDIR

    valid.onnx              a small correct model (Gemm + Relu), the sanity case
    no_nodes.onnx           a graph without nodes whose output is its input (compiles)
    unsupported_op.onnx     one ImageDecoder node (a standard op onnx2c does not implement)
    unknown_domain_op.onnx  one node Frobnicate of the custom domain com.example
    missing_input.onnx      node 'add0' reads 'Z', which is no input, initializer or output
    unbound_dim.onnx        input X has the symbolic shape [N, 4]
    unbound_dim_data/test_data_set_0/   X and Y for N = 1 (to run the --dim N=1 result)
    shape_input.onnx        Reshape whose target shape is the graph input 'shape' (node 'reshape0')
    shape_input_data/       shape.pb ([3, 2] int64), bad_shape.pb (float), test_data_set_0/
                            with X [2, 3] as input_0 and Y = X reshaped as output_0
    truncated.onnx          valid.onnx cut inside its weight data
    not_onnx.onnx           a text file
    empty.onnx              zero bytes
    ext/                    models keeping W (64x32 float, 8192 bytes) in external data:
      weights.bin             W's bytes at offset 4096 after 4096 zero bytes (12288 bytes)
      sub/                    a folder (not a regular file)
      link.bin                symlink to ../outside.bin (escapes the model's folder)
      inner_link.bin          symlink to weights.bin (stays inside: allowed)
      ok.onnx                 location weights.bin, offset 4096, length 8192 (compiles)
      ok_link.onnx            location inner_link.bin, offset 4096
      absolute.onnx, dotdot.onnx, symlink_escape.onnx, missing_file.onnx, no_location.onnx,
      directory.onnx, offset_past_end.onnx, length_past_end.onnx, length_mismatch.onnx,
      bad_offset.onnx         one bad location or range each
      ok_checksum.onnx        checksum = SHA-1 of weights.bin, as the spec defines it (compiles)
      ok_checksum_tensor.onnx checksum = SHA-1 of W's 8192 bytes, in capitals (compiles)
      checksum_mismatch.onnx, checksum_not_hex.onnx   a wrong and a malformed checksum
    outside.bin             a file outside ext/ that ext/ models must not reach
    hostile/NAME.onnx       the catalogue of hostile and invalid models (hostile_models() below;
                            run_negative.py's HOSTILE table gives each one's expected error)
The models are built with onnx.helper and not checked (most of them are invalid on purpose).
Deterministic: the same bytes on every run.
"""
import hashlib
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 17)]


def model(nodes, inputs, outputs, initializers=(), opsets=OPSET, name="g", functions=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=opsets, producer_name="onnx2c-negative-tests",
                          functions=list(functions))
    m.ir_version = 8
    return m.SerializeToString()


def weights_bin(w):
    """ext/weights.bin: W's bytes at offset 4096 after 4096 zero bytes."""
    return bytes(4096) + w.raw_data


def external_models(w, b, f32):
    """valid.onnx with W moved to external data, once per location and range under test."""
    def ext(location, offset="4096", length="8192", checksum=None):
        t = TensorProto()
        t.CopyFrom(w)
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", location), ("offset", offset), ("length", length),
                           ("checksum", checksum)):
            if value is not None:
                e = t.external_data.add()
                e.key, e.value = key, value
        return model(
            [helper.make_node("Gemm", ["X", "W", "B"], ["H"], name="gemm0"),
             helper.make_node("Relu", ["H"], ["Y"], name="relu0")],
            [helper.make_tensor_value_info("X", f32, [1, 64])],
            [helper.make_tensor_value_info("Y", f32, [1, 32])],
            [t, b])
    cases = {
        "ok": ext("weights.bin"),
        "ok_link": ext("inner_link.bin"),
        "ok_no_length": ext("weights.bin", length=None),
        "absolute": ext("/etc/hostname"),
        "dotdot": ext("sub/../../outside.bin", offset="0"),
        "symlink_escape": ext("link.bin", offset="0"),
        "missing_file": ext("no_such_file.bin"),
        "no_location": ext(None),
        "empty_location": ext(""),
        "directory": ext("sub"),
        "offset_past_end": ext("weights.bin", offset="20000"),
        "length_past_end": ext("weights.bin", offset="8192", length="8192"),
        "length_mismatch": ext("weights.bin", offset="0", length="4096"),
        "no_length_mismatch": ext("weights.bin", offset="0", length=None),
        "bad_offset": ext("weights.bin", offset="-4096"),
        "huge_offset": ext("weights.bin", offset="99999999999999999999999"),
        "ok_checksum": ext("weights.bin", checksum=hashlib.sha1(weights_bin(w)).hexdigest()),
        "ok_checksum_tensor": ext("weights.bin",
                                  checksum=hashlib.sha1(w.raw_data).hexdigest().upper()),
        "checksum_mismatch": ext("weights.bin", checksum=hashlib.sha1(b"other").hexdigest()),
        "checksum_not_hex": ext("weights.bin", checksum="sha1:" + "0" * 35),
    }
    return {f"ext/{name}.onnx": data for name, data in cases.items()}


def varint(n):
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | 0x80 if n else b)
        if not n:
            return bytes(out)


def field(num, payload):
    """A length-delimited protobuf field."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def vfield(num, v):
    return varint(num << 3) + varint(v)


def nested_if_model(depth):
    """If nodes nested `depth` deep, encoded by hand (the protobuf library refuses to write
    messages this deep): GraphProto{node: NodeProto{If, then_branch: GraphProto{...}}}."""
    vi = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, [1, 4]).SerializeToString()
    leaf = helper.make_graph([helper.make_node("Identity", ["X"], ["o"])], "leaf", [],
                             [helper.make_tensor_value_info("o", TensorProto.FLOAT, [1, 4])])
    leaf = leaf.SerializeToString()
    g = leaf
    for _ in range(depth):
        then = field(1, b"then_branch") + vfield(20, 5) + field(6, g)
        other = field(1, b"else_branch") + vfield(20, 5) + field(6, leaf)
        node = field(1, b"C") + field(2, b"o") + field(4, b"If") + field(5, then) + field(5, other)
        g = field(1, node) + field(2, b"b") + field(12, vi("o"))
    then = field(1, b"then_branch") + vfield(20, 5) + field(6, g)
    other = field(1, b"else_branch") + vfield(20, 5) + field(6, leaf)
    node = (field(1, b"C") + field(2, b"Y") + field(3, b"if0") + field(4, b"If") + field(5, then)
            + field(5, other))
    cond = helper.make_tensor_value_info("C", TensorProto.BOOL, []).SerializeToString()
    graph = field(1, node) + field(2, b"g") + field(11, vi("X")) + field(11, cond) + field(12, vi("Y"))
    return vfield(1, 8) + field(7, graph) + field(8, helper.make_opsetid("", 17).SerializeToString())


def nested_sequence_type_model(depth):
    """A graph input of type sequence(sequence(...(tensor))) nested `depth` deep."""
    t = helper.make_tensor_type_proto(TensorProto.FLOAT, [1]).SerializeToString()
    for _ in range(depth):
        t = field(4, field(1, t))  # TypeProto.sequence_type{elem_type}
    vi = field(1, b"X") + field(2, t)
    out = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1]).SerializeToString()
    node = helper.make_node("Identity", ["X"], ["Y"], name="id0").SerializeToString()
    graph = field(1, node) + field(2, b"g") + field(11, vi) + field(12, out)
    return vfield(1, 8) + field(7, graph) + field(8, helper.make_opsetid("", 17).SerializeToString())


def hostile_models(valid):
    """The catalogue: name -> model bytes. Each must be refused with one line (exit 1), fast."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    X = lambda shape=(1, 4), name="X", t=f32: helper.make_tensor_value_info(name, t, list(shape))
    Y = lambda shape=(1, 4), name="Y", t=f32: helper.make_tensor_value_info(name, t, list(shape))
    arr = numpy_helper.from_array
    mk = helper.make_node
    local = OPSET + [helper.make_opsetid("local", 1)]
    M = {}

    # null dereferences seen in fuzzing
    M["zero_outputs"] = model([mk("Relu", ["X"], [], name="r0"), mk("Relu", ["X"], ["Y"], name="r1")],
                              [X()], [Y()])
    M["pad_empty_pads"] = model([mk("Pad", ["X", ""], ["Y"], name="pad0")], [X()], [Y()])
    M["einsum_empty_operand"] = model([mk("Einsum", ["X", ""], ["Y"], name="e0", equation="ij,ij->ij")],
                                      [X()], [Y()])
    # nesting: protobuf-c would recurse past the stack
    M["deep_if"] = nested_if_model(3000)
    M["deep_sequence_type"] = nested_sequence_type_model(5000)
    # time and memory bombs
    M["constant_of_shape_bomb"] = model(
        [mk("ConstantOfShape", ["s"], ["c"], name="cos0", value=arr(np.array([1.0], np.float32))),
         mk("Add", ["X", "c"], ["Y"], name="add0")],
        [X()], [Y([1 << 28, 4])], [arr(np.array([1 << 28, 4], np.int64), "s")])
    M["tile_bomb"] = model(
        [mk("Tile", ["w", "r"], ["c"], name="tile0"), mk("Add", ["X", "c"], ["Y"], name="add0")],
        [X()], [Y([1 << 27, 4])],
        [arr(np.ones((1, 4), np.float32), "w"), arr(np.array([1 << 27, 1], np.int64), "r")])
    M["pad_bomb"] = model(
        [mk("Pad", ["w", "p"], ["c"], name="pad0"), mk("Add", ["X", "c"], ["Y"], name="add0")],
        [X()], [Y()], [arr(np.ones((1, 4), np.float32), "w"), arr(np.array([0, 0, 1 << 28, 0], np.int64), "p")])
    # 40 folded constants of 32 MB: each under the per-constant limit, together over the total
    M["fold_total_bomb"] = model(
        [mk("ConstantOfShape", ["s"], [f"c{i}"], name=f"cos{i}", value=arr(np.array([float(i)], np.float32)))
         for i in range(40)] + [mk("Sum", [f"c{i}" for i in range(40)], ["Y"], name="sum0")],
        [], [Y([1 << 23])], [arr(np.array([1 << 23], np.int64), "s")])
    fns = [helper.make_function("local", "f40", ["a"], ["o"], [mk("Relu", ["a"], ["o"])], OPSET)]
    for i in range(39, -1, -1):  # f_i calls f_{i+1} twice: 2^40 Relu nodes
        fns.append(helper.make_function("local", f"f{i}", ["a"], ["o"],
                                        [mk(f"f{i + 1}", ["a"], ["t"], domain="local"),
                                         mk(f"f{i + 1}", ["t"], ["o"], domain="local")], local))
    M["function_bomb"] = model([mk("f0", ["X"], ["Y"], name="call0", domain="local")], [X()], [Y()],
                               opsets=local, functions=fns)
    fns = [helper.make_function("local", "g2000", ["a"], ["o"], [mk("Relu", ["a"], ["o"])], OPSET)]
    for i in range(1999, -1, -1):
        fns.append(helper.make_function("local", f"g{i}", ["a"], ["o"],
                                        [mk(f"g{i + 1}", ["a"], ["o"], domain="local")], local))
    M["function_chain"] = model([mk("g0", ["X"], ["Y"], name="call0", domain="local")], [X()], [Y()],
                                opsets=local, functions=fns)
    M["huge_arena"] = model(
        [mk("Transpose", ["X"], ["h"], name="t0"), mk("Transpose", ["h"], ["Y"], name="t1")],
        [X([1 << 20, 1 << 24])], [Y([1 << 20, 1 << 24])])
    # signed overflow in shape arithmetic
    w33 = arr(np.ones((1, 1, 3, 3), np.float32), "w")
    M["conv_huge_pads"] = model([mk("Conv", ["X", "w"], ["Y"], name="conv0", pads=[2 ** 62] * 4)],
                                [X([1, 1, 4, 4])], [Y([1, 1, 4, 4])], [w33])
    M["conv_huge_dilations"] = model([mk("Conv", ["X", "w"], ["Y"], name="conv0", dilations=[2 ** 62, 1])],
                                     [X([1, 1, 4, 4])], [Y([1, 1, 4, 4])], [w33])
    M["pad_huge_pads"] = model([mk("Pad", ["X", "p"], ["Y"], name="pad0")], [X()], [Y()],
                               [arr(np.array([0, 2 ** 62, 0, 2 ** 62], np.int64), "p")])
    M["pad_huge_negative_pads"] = model([mk("Pad", ["X", "p"], ["Y"], name="pad0")], [X()], [Y()],
                                        [arr(np.array([0, -2 ** 62, 0, -2 ** 62], np.int64), "p")])
    # validation of what ONNX forbids
    M["duplicate_graph_input"] = model([mk("Relu", ["X"], ["Y"], name="r0")], [X(), X()], [Y()])
    M["constant_two_values"] = model(
        [mk("Constant", [], ["c"], name="c0", value=arr(np.ones((1, 4), np.float32)), value_float=1.0),
         mk("Add", ["X", "c"], ["Y"], name="add0")], [X()], [Y()])
    fn = helper.make_function("local", "f", ["a", "b"], ["o"], [mk("Add", ["a", "b"], ["o"])], OPSET)
    M["function_too_many_inputs"] = model([mk("f", ["X", "X", "X"], ["Y"], name="call0", domain="local")],
                                          [X()], [Y()], opsets=local, functions=[fn])
    M["function_too_many_outputs"] = model([mk("f", ["X", "X"], ["Y", "Z"], name="call0", domain="local")],
                                           [X()], [Y()], opsets=local, functions=[fn])
    M["function_recursion"] = model(
        [mk("r", ["X"], ["Y"], name="call0", domain="local")], [X()], [Y()], opsets=local,
        functions=[helper.make_function("local", "r", ["a"], ["o"], [mk("r", ["a"], ["o"], domain="local")], local)])
    one = helper.make_graph([mk("Identity", ["X"], ["o"])], "t", [], [Y(name="o")])
    two = helper.make_graph([mk("Identity", ["X"], ["o"]), mk("Identity", ["X"], ["o2"])], "e", [],
                            [Y(name="o"), Y(name="o2")])
    M["if_branch_output_counts"] = model(
        [mk("If", ["C"], ["Y"], name="if0", then_branch=one, else_branch=two)],
        [X(), X([], "C", TensorProto.BOOL)], [Y()])
    M["too_many_outputs"] = model([mk("Relu", ["X"], ["Y", "Z"], name="r0")], [X()], [Y()])
    M["gather_nd_index_out_of_range"] = model([mk("GatherND", ["X", "i"], ["Y"], name="g0")], [X([2, 2])],
                                              [Y([1])], [arr(np.array([[5, 7]], np.int64), "i")])
    M["gather_elements_index_out_of_range"] = model(
        [mk("GatherElements", ["X", "i"], ["Y"], name="g0")], [X([2, 2])], [Y([2, 2])],
        [arr(np.array([[0, 9], [1, 0]], np.int64), "i")])
    M["scatter_nd_index_out_of_range"] = model(
        [mk("ScatterND", ["X", "i", "u"], ["Y"], name="s0")], [X([4])], [Y([4])],
        [arr(np.array([[9]], np.int64), "i"), arr(np.array([1.0], np.float32), "u")])
    M["scatter_elements_index_out_of_range"] = model(
        [mk("ScatterElements", ["X", "i", "u"], ["Y"], name="s0")], [X([4])], [Y([4])],
        [arr(np.array([-9], np.int64), "i"), arr(np.array([1.0], np.float32), "u")])
    M["gather_index_out_of_range"] = model([mk("Gather", ["X", "i"], ["Y"], name="g0")], [X([4])], [Y([1])],
                                           [arr(np.array([4], np.int64), "i")])
    # error lines: control bytes in names
    M["control_chars_in_name"] = model([mk("Frobnicate", ["X"], ["Y"], name="bad\nname\x1b[31m")],
                                       [X()], [Y()])
    # corrupted protobuf
    M["byte_flipped"] = valid[:40] + bytes([valid[40] ^ 0xFF]) + valid[41:60] + b"\xff\xff\xff\xff\x0f" + valid[60:]
    M["wrong_wire_type"] = vfield(7, 5) + field(8, helper.make_opsetid("", 17).SerializeToString())
    M["length_past_end"] = field(7, b"")[:1] + varint(1 << 40) + b"\x00" * 8
    # shapes and sizes
    M["negative_dim"] = model([mk("Relu", ["X"], ["Y"], name="r0")], [X([1, -4])], [Y()])
    M["huge_dims_overflow"] = model([mk("Relu", ["X"], ["Y"], name="r0")], [X([1 << 40, 1 << 40])],
                                    [Y([1 << 40, 1 << 40])])
    bad_raw = arr(np.ones((4,), np.float32), "W")
    bad_raw.raw_data = bad_raw.raw_data[:10]
    M["raw_data_size_mismatch"] = model([mk("Add", ["X", "W"], ["Y"], name="add0")], [X()], [Y()], [bad_raw])
    def tensor(name, dtype, dims, floats=()):  # unchecked, unlike helper.make_tensor
        t = TensorProto(name=name, data_type=dtype, dims=dims)
        t.float_data.extend(floats)
        return t
    typed = tensor("W", f32, [4], [1.0, 2.0, 3.0])
    M["typed_data_size_mismatch"] = model([mk("Add", ["X", "W"], ["Y"], name="add0")], [X()], [Y()], [typed])
    neg_init = tensor("W", f32, [-1, 4])
    M["initializer_negative_dim"] = model([mk("Add", ["X", "W"], ["Y"], name="add0")], [X()], [Y()], [neg_init])
    huge_init = tensor("W", f32, [1 << 31, 1 << 31, 1 << 31])
    M["initializer_numel_overflow"] = model([mk("Add", ["X", "W"], ["Y"], name="add0")], [X()], [Y()], [huge_init])
    # found by fuzzing: a shape asking for gigabytes was allocated before its data was checked
    M["initializer_without_data"] = model([mk("Add", ["X", "W"], ["Y"], name="add0")], [X()], [Y()],
                                          [tensor("W", f32, [1 << 16, 1 << 16])])
    M["string_tensor"] = model([mk("Identity", ["W"], ["Y"], name="id0")], [], [Y([1], t=TensorProto.STRING)],
                               [helper.make_tensor("W", TensorProto.STRING, [1], [b"hi"])])
    sparse = helper.make_sparse_tensor(helper.make_tensor("v", f32, [1], [1.0]),
                                       helper.make_tensor("i", i64, [1], [0]), [4])
    M["sparse_constant"] = model([mk("Constant", [], ["c"], name="c0", sparse_value=sparse),
                                  mk("Add", ["X", "c"], ["Y"], name="add0")], [X([4])], [Y([4])])
    # graph structure
    M["cycle"] = model([mk("Add", ["X", "b"], ["a"], name="add0"), mk("Relu", ["a"], ["b"], name="r0"),
                        mk("Identity", ["b"], ["Y"], name="id0")], [X()], [Y()])
    M["duplicate_output_name"] = model([mk("Relu", ["X"], ["Y"], name="r0"), mk("Relu", ["X"], ["Y"], name="r1")],
                                       [X()], [Y()])
    M["duplicate_initializer"] = model([mk("Add", ["X", "W"], ["Y"], name="add0")], [X()], [Y()],
                                       [arr(np.ones((4,), np.float32), "W"), arr(np.ones((4,), np.float32), "W")])
    M["missing_graph_output"] = model([mk("Relu", ["X"], ["H"], name="r0")], [X()], [Y()])
    M["no_graph_outputs"] = model([mk("Relu", ["X"], ["H"], name="r0")], [X()], [])
    M["unknown_opset_version"] = model([mk("Relu", ["X"], ["Y"], name="r0")], [X()], [Y()],
                                       opsets=[helper.make_opsetid("", 999)])
    M["no_opset_import"] = model([mk("Relu", ["X"], ["Y"], name="r0")], [X()], [Y()], opsets=[])
    M["unknown_domain"] = model([mk("Relu", ["X"], ["Y"], name="r0", domain="com.nowhere")], [X()], [Y()])
    # absurd attributes
    M["conv_zero_strides"] = model([mk("Conv", ["X", "w"], ["Y"], name="conv0", strides=[0, 1])],
                                   [X([1, 1, 4, 4])], [Y([1, 1, 2, 2])], [w33])
    M["conv_zero_dilations"] = model([mk("Conv", ["X", "w"], ["Y"], name="conv0", dilations=[1, 0])],
                                     [X([1, 1, 4, 4])], [Y([1, 1, 2, 2])], [w33])
    M["conv_negative_pads"] = model([mk("Conv", ["X", "w"], ["Y"], name="conv0", pads=[-1, 0, 0, 0])],
                                    [X([1, 1, 4, 4])], [Y([1, 1, 2, 2])], [w33])
    M["conv_kernel_larger_than_input"] = model(
        [mk("Conv", ["X", "w"], ["Y"], name="conv0")], [X([1, 1, 2, 2])], [Y([1, 1, 1, 1])], [w33])
    M["conv_group_does_not_divide"] = model(
        [mk("Conv", ["X", "w"], ["Y"], name="conv0", group=2)], [X([1, 3, 4, 4])], [Y([1, 2, 2, 2])],
        [arr(np.ones((2, 1, 3, 3), np.float32), "w")])
    M["maxpool_zero_kernel"] = model([mk("MaxPool", ["X"], ["Y"], name="pool0", kernel_shape=[0, 2])],
                                     [X([1, 1, 4, 4])], [Y([1, 1, 2, 2])])
    M["transpose_repeated_perm"] = model([mk("Transpose", ["X"], ["Y"], name="t0", perm=[0, 0])],
                                         [X([2, 3])], [Y([2, 2])])
    M["reshape_two_minus_ones"] = model(
        [mk("Reshape", ["X", "s"], ["Y"], name="reshape0")], [X([2, 6])], [Y([3, 4])],
        [arr(np.array([-1, -1], np.int64), "s")])
    M["split_sizes_mismatch"] = model(
        [mk("Split", ["X", "s"], ["Y", "Z"], name="split0", axis=1)], [X([2, 6])], [Y([2, 3]), Y([2, 3], "Z")],
        [arr(np.array([3, 4], np.int64), "s")])
    return {f"hostile/{name}.onnx": data for name, data in M.items()}


def sequence_models(files):
    """Sequences whose length or positions are not known at compile time, and sequence uses
    onnx2c does not resolve (ops/sequence.c)."""
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    X = helper.make_tensor_value_info("X", f32, [4, 2])
    Y = helper.make_tensor_value_info("Y", f32, [1, 2])
    split = helper.make_node("SplitToSequence", ["X"], ["S"], name="split0", keepdims=1)
    files["sequence_position_input.onnx"] = model(
        [split, helper.make_node("SequenceAt", ["S", "pos"], ["Y"], name="at0")],
        [X, helper.make_tensor_value_info("pos", i64, [])], [Y])
    files["sequence_position_range.onnx"] = model(
        [split, helper.make_node("SequenceAt", ["S", "pos"], ["Y"], name="at0")], [X], [Y],
        [numpy_helper.from_array(np.array(4, np.int64), "pos")])
    files["sequence_tensor_use.onnx"] = model(
        [split, helper.make_node("Identity", ["S"], ["Y"], name="id0")], [X], [Y])
    body = helper.make_graph([helper.make_node("Identity", ["a"], ["b"])], "body",
                             [helper.make_tensor_value_info("a", f32, [1, 2])],
                             [helper.make_tensor_value_info("b", f32, [1, 2])])
    files["sequence_map.onnx"] = model(
        [split, helper.make_node("SequenceMap", ["S"], ["T"], name="map0", body=body),
         helper.make_node("SequenceAt", ["T", "zero"], ["Y"], name="at0")], [X], [Y],
        [numpy_helper.from_array(np.array(0, np.int64), "zero")])
    # onnxruntime's layout ops (ORT_ENABLE_ALL), and a com.microsoft op onnx2c lacks
    X4 = helper.make_tensor_value_info("X", f32, [1, 8, 4, 4])
    files["contrib_nchwc.onnx"] = model(
        [helper.make_node("ReorderInput", ["X"], ["Y"], name="reorder0",
                          domain="com.microsoft.nchwc")], [X4], [X4],
        opsets=OPSET + [helper.make_opsetid("com.microsoft.nchwc", 1)])
    files["contrib_unsupported.onnx"] = model(
        [helper.make_node("Inverse", ["X"], ["Y"], name="inv0", domain="com.microsoft")],
        [X4], [X4], opsets=OPSET + [helper.make_opsetid("com.microsoft", 1)])
    # com.microsoft attention forms onnx2c refuses: a 4-D (Megatron) mask_index, padded
    # GroupQueryAttention sequences (seqlens_k below total_sequence_length - 1)
    ms = [helper.make_opsetid("com.microsoft", 1)]
    X3 = helper.make_tensor_value_info("X", f32, [2, 3, 8])
    Y3 = helper.make_tensor_value_info("Y", f32, [2, 3, 8])
    files["contrib_attention_mask4d.onnx"] = model(
        [helper.make_node("Attention", ["X", "w", "b", "mask"], ["Y"], name="attn0",
                          domain="com.microsoft", num_heads=2)], [X3], [Y3],
        [numpy_helper.from_array(np.zeros((8, 24), np.float32), "w"),
         numpy_helper.from_array(np.zeros(24, np.float32), "b"),
         numpy_helper.from_array(np.ones((2, 1, 3, 3), np.int32), "mask")], opsets=OPSET + ms)
    # --emit-onnx of an opset-17 model whose com.microsoft Attention became the opset-23 op
    files["contrib_attention_opset17.onnx"] = model(
        [helper.make_node("Attention", ["X", "w", "b"], ["Y"], name="attn1",
                          domain="com.microsoft", num_heads=2)], [X3], [Y3],
        [numpy_helper.from_array(np.zeros((8, 24), np.float32), "w"),
         numpy_helper.from_array(np.zeros(24, np.float32), "b")], opsets=OPSET + ms)
    files["contrib_gqa_padded.onnx"] = model(
        [helper.make_node("GroupQueryAttention", ["X", "X", "X", "", "", "lens", "total"], ["Y"],
                          name="gqa0", domain="com.microsoft", num_heads=2, kv_num_heads=2)],
        [X3], [Y3],
        [numpy_helper.from_array(np.array([2, 1], np.int32), "lens"),
         numpy_helper.from_array(np.array(3, np.int32), "total")], opsets=OPSET + ms)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    files = {}

    f32 = TensorProto.FLOAT
    w = numpy_helper.from_array(rng.standard_normal((64, 32)).astype(np.float32), "W")
    b = numpy_helper.from_array(rng.standard_normal((32,)).astype(np.float32), "B")
    valid = model(
        [helper.make_node("Gemm", ["X", "W", "B"], ["H"], name="gemm0"),
         helper.make_node("Relu", ["H"], ["Y"], name="relu0")],
        [helper.make_tensor_value_info("X", f32, [1, 64])],
        [helper.make_tensor_value_info("Y", f32, [1, 32])],
        [w, b])
    files["valid.onnx"] = valid
    # Cut in the middle of W's raw data: the length prefix promises more bytes than follow.
    files["truncated.onnx"] = valid[: len(valid) // 2]
    files["not_onnx.onnx"] = b"This is not an ONNX model, just a few words of text.\n" * 4
    files["empty.onnx"] = b""

    files["unsupported_op.onnx"] = model(
        [helper.make_node("ImageDecoder", ["X"], ["Y"], name="dec0")],
        [helper.make_tensor_value_info("X", TensorProto.UINT8, [64])],
        [helper.make_tensor_value_info("Y", TensorProto.UINT8, [4, 4, 3])])

    files["unknown_domain_op.onnx"] = model(
        [helper.make_node("Frobnicate", ["X"], ["Y"], name="frob0", domain="com.example")],
        [helper.make_tensor_value_info("X", f32, [1, 4])],
        [helper.make_tensor_value_info("Y", f32, [1, 4])],
        opsets=OPSET + [helper.make_opsetid("com.example", 1)])

    files["missing_input.onnx"] = model(
        [helper.make_node("Add", ["X", "Z"], ["Y"], name="add0")],
        [helper.make_tensor_value_info("X", f32, [1, 4])],
        [helper.make_tensor_value_info("Y", f32, [1, 4])])

    files["unbound_dim.onnx"] = model(
        [helper.make_node("Relu", ["X"], ["Y"], name="relu0")],
        [helper.make_tensor_value_info("X", f32, ["N", 4])],
        [helper.make_tensor_value_info("Y", f32, ["N", 4])])

    files["shape_input.onnx"] = model(
        [helper.make_node("Reshape", ["X", "shape"], ["Y"], name="reshape0")],
        [helper.make_tensor_value_info("X", f32, [2, 3]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("Y", f32, [3, 2])])

    # found by fuzzing: a graph without nodes (its output is its input) made passes qsort NULL
    files["no_nodes.onnx"] = model([], [helper.make_tensor_value_info("X", f32, [1, 4])],
                                   [helper.make_tensor_value_info("X", f32, [1, 4])])
    files.update(external_models(w, b, f32))
    files.update(hostile_models(valid))
    os.makedirs(os.path.join(out, "ext", "sub"), exist_ok=True)
    os.makedirs(os.path.join(out, "hostile"), exist_ok=True)
    sequence_models(files)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    with open(os.path.join(out, "ext", "weights.bin"), "wb") as f:
        f.write(weights_bin(w))
    with open(os.path.join(out, "outside.bin"), "wb") as f:
        f.write(w.raw_data)
    for link, target in (("link.bin", "../outside.bin"), ("inner_link.bin", "weights.bin")):
        path = os.path.join(out, "ext", link)
        if os.path.lexists(path):
            os.remove(path)
        os.symlink(target, path)

    x = rng.standard_normal((2, 3)).astype(np.float32)
    shape_dir = os.path.join(out, "shape_input_data")
    for fname, arr, tname in (("shape.pb", np.array([3, 2], np.int64), "shape"),
                              ("bad_shape.pb", np.array([3, 2], np.float32), "shape"),
                              ("test_data_set_0/input_0.pb", x, "X"),
                              ("test_data_set_0/output_0.pb", x.reshape(3, 2), "Y")):
        os.makedirs(os.path.dirname(os.path.join(shape_dir, fname)), exist_ok=True)
        with open(os.path.join(shape_dir, fname), "wb") as f:
            f.write(numpy_helper.from_array(arr, tname).SerializeToString())

    ds = os.path.join(out, "unbound_dim_data", "test_data_set_0")
    os.makedirs(ds, exist_ok=True)
    x = rng.standard_normal((1, 4)).astype(np.float32)
    for fname, arr, tname in (("input_0.pb", x, "X"), ("output_0.pb", np.maximum(x, 0), "Y")):
        with open(os.path.join(ds, fname), "wb") as f:
            f.write(numpy_helper.from_array(arr, tname).SerializeToString())
    print(f"make_bad_models: wrote {len(files)} files to {out}")


if __name__ == "__main__":
    main()
