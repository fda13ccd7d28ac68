#!/usr/bin/env python3
"""Writes the inputs of the negative tests (run_negative.py) into OUTDIR.

    make_bad_models.py OUTDIR

    valid.onnx              a small correct model (Gemm + Relu), the sanity case
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
    outside.bin             a file outside ext/ that ext/ models must not reach
The models are built with onnx.helper and not checked (most of them are invalid on purpose).
Deterministic: the same bytes on every run.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OPSET = [helper.make_opsetid("", 17)]


def model(nodes, inputs, outputs, initializers=(), opsets=OPSET, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=opsets, producer_name="onnx2c-negative-tests")
    m.ir_version = 8
    return m.SerializeToString()


def external_models(w, b, f32):
    """valid.onnx with W moved to external data, once per location and range under test."""
    def ext(location, offset="4096", length="8192"):
        t = TensorProto()
        t.CopyFrom(w)
        t.ClearField("raw_data")
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", location), ("offset", offset), ("length", length)):
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
    }
    return {f"ext/{name}.onnx": data for name, data in cases.items()}


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

    files.update(external_models(w, b, f32))
    os.makedirs(os.path.join(out, "ext", "sub"), exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    with open(os.path.join(out, "ext", "weights.bin"), "wb") as f:
        f.write(bytes(4096) + w.raw_data)
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
