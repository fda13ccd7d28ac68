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

    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

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
