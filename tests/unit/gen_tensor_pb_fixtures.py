#!/usr/bin/env python3
"""Writes the TensorProto fixtures of test_tensor_pb.c into fixtures/, and fixtures/expected.h.

    .venv/bin/python tests/unit/gen_tensor_pb_fixtures.py [OUT_DIR]

Three kinds of file, to cover what the C reader must accept:
  raw_*    numpy_helper.from_array: dims, data_type, name, raw_data (what test data uses);
           the C writer must reproduce these bytes exactly;
  typed_*  helper.make_tensor(raw=False): the typed fields float_data, int32_data, ...;
  hand_*   wire bytes built here: packed and unpacked repeats mixed, fields repeated (the last
           name/data_type/raw_data wins), unknown fields of every wire type including groups.
The expected values in expected.h are the element bits of the numpy arrays onnx's own reader
(numpy_helper.to_array) returns, checked against the values written, so they never come from
the decoder under test. Re-running the script gives byte-identical files.
"""
import os
import sys

import ml_dtypes
import numpy as np
from onnx import TensorProto, helper, numpy_helper

I64 = np.iinfo(np.int64)
I32 = np.iinfo(np.int32)


# ---- protobuf wire format, by hand ----
def varint(v):
    v &= (1 << 64) - 1  # negative values are sent as 10-byte two's complement
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def tag(number, wire):
    return varint(number << 3 | wire)


def f_varint(number, v):
    return tag(number, 0) + varint(v)


def f_fixed64(number, v):
    return tag(number, 1) + int(v).to_bytes(8, "little")


def f_bytes(number, b):
    return tag(number, 2) + varint(len(b)) + b


def f_fixed32(number, v):
    return tag(number, 5) + int(v).to_bytes(4, "little")


def f_float(number, x):
    return f_fixed32(number, np.float32(x).view(np.uint32))


def packed_floats(xs):
    return np.asarray(xs, dtype="<f4").tobytes()


def packed_varints(xs):
    return b"".join(varint(int(x)) for x in xs)


def hand_mixed():
    """FLOAT [2,2] = [[1,2],[3,4]] named 'last', split and interleaved with unknown fields."""
    group = tag(103, 3) + f_varint(1, 5) + tag(5, 3) + f_fixed32(2, 9) + tag(5, 4) + tag(103, 4)
    return b"".join([
        f_varint(100, 300),
        f_varint(1, 2),  # dims, unpacked
        f_bytes(8, b"first"),
        f_varint(2, TensorProto.INT64),  # overridden below: the last data_type wins
        f_fixed64(101, 0x0123456789ABCDEF),
        f_bytes(4, packed_floats([1, 2])),  # float_data, packed
        group,
        f_float(4, 3),  # float_data, unpacked
        f_bytes(12, b"doc"),
        f_bytes(1, packed_varints([2])),  # dims, packed
        f_float(4, 4),
        f_fixed32(102, 7),
        f_varint(2, TensorProto.FLOAT),
        f_bytes(8, b"last"),
        f_bytes(104, b"\xff\xff"),
    ])


def hand_int64_mixed():
    """INT64 [3] = [-7, 8, 2**40]: one unpacked 10-byte negative varint, then a packed run."""
    return b"".join([
        f_varint(1, 3),
        f_varint(2, TensorProto.INT64),
        f_varint(7, -7),
        f_bytes(7, packed_varints([8, 1 << 40])),
        f_bytes(8, b"i"),
    ])


def hand_raw_twice():
    """INT32 [2]: two raw_data fields; the second one, [5, -6], wins."""
    return b"".join([
        f_varint(1, 2),
        f_varint(2, TensorProto.INT32),
        f_bytes(9, np.array([1, 2], dtype="<i4").tobytes()),
        f_bytes(9, np.array([5, -6], dtype="<i4").tobytes()),
    ])


def cases():
    """(file stem, serialized bytes, values the file must hold, onnx_layout)."""
    f32, f16, bf16 = np.float32, np.float16, ml_dtypes.bfloat16
    raw = [
        ("raw_float", np.array([[0, -0.0, 1.5], [-3.25e-5, np.inf, np.nan]], f32), "x"),
        ("raw_double", np.array([1 / 3, -1e300, 5e-324], np.float64), "d"),
        ("raw_int8", np.array([-128, -1, 0, 127], np.int8), "i8"),
        ("raw_uint8", np.array([0, 1, 128, 255], np.uint8), "u8"),
        ("raw_int16", np.array([-32768, -2, 32767], np.int16), "i16"),
        ("raw_uint16", np.array([0, 40000, 65535], np.uint16), "u16"),
        ("raw_int32", np.array([[I32.min, -1], [7, I32.max]], np.int32), "i32"),
        ("raw_int64", np.array([[I64.min, -5, I64.max]], np.int64), "i64"),
        ("raw_uint32", np.array([0, 4294967295], np.uint32), "u32"),
        ("raw_uint64", np.array([1, 2**64 - 1], np.uint64), "u64"),
        ("raw_bool", np.array([[True, False], [False, True]]), "b"),
        ("raw_float16", np.array([1, -2, 65504, np.inf], f16), "h"),
        ("raw_bfloat16", np.array([1, -2.5, 3.0e38], bf16), "bf"),
        ("raw_scalar", np.array(3.5, f32), "s"),
        ("raw_empty", np.zeros((0, 3), f32), "e"),
        ("raw_noname", np.array([4, -4], np.int64), None),
    ]
    out = []
    for stem, arr, name in raw:
        t = numpy_helper.from_array(arr, name) if name else numpy_helper.from_array(arr)
        out.append((stem, t.SerializeToString(), arr, 1))

    T = TensorProto
    typed = [
        ("typed_float", T.FLOAT, [3], np.array([1, -2.5, 1e-7], f32)),
        ("typed_double", T.DOUBLE, [2], np.array([1 / 3, -1e300])),
        ("typed_int32", T.INT32, [3], np.array([I32.min, 0, I32.max], np.int32)),
        ("typed_int64", T.INT64, [2, 2], np.array([[I64.min, -1], [0, I64.max]], np.int64)),
        ("typed_int8", T.INT8, [3], np.array([-128, 0, 127], np.int8)),
        ("typed_uint8", T.UINT8, [3], np.array([0, 1, 255], np.uint8)),
        ("typed_int16", T.INT16, [2], np.array([-32768, 32767], np.int16)),
        ("typed_uint16", T.UINT16, [2], np.array([0, 65535], np.uint16)),
        ("typed_bool", T.BOOL, [3], np.array([True, False, True])),
        ("typed_float16", T.FLOAT16, [3], np.array([1, -2, np.inf], f16)),
        ("typed_bfloat16", T.BFLOAT16, [2], np.array([1, -2.5], bf16)),
        ("typed_uint32", T.UINT32, [2], np.array([0, 4294967295], np.uint32)),
        ("typed_uint64", T.UINT64, [2], np.array([1, 2**64 - 1], np.uint64)),
    ]
    for stem, dtype, dims, arr in typed:
        t = helper.make_tensor(stem, dtype, dims, arr.reshape(-1))
        assert not t.HasField("raw_data"), stem
        out.append((stem, t.SerializeToString(), arr.reshape(dims), 0))

    out.append(("hand_mixed", hand_mixed(), np.array([[1, 2], [3, 4]], f32), 0))
    out.append(("hand_int64_mixed", hand_int64_mixed(), np.array([-7, 8, 1 << 40], np.int64), 0))
    out.append(("hand_raw_twice", hand_raw_twice(), np.array([5, -6], np.int32), 0))
    return out


def bits(arr):
    """Element bit patterns as unsigned integers of the element's width (bool: one byte)."""
    a = np.ascontiguousarray(arr)
    return a.reshape(-1).view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize])


def c_array(ident, b):
    ctype = {1: "uint8_t", 2: "uint16_t", 4: "uint32_t", 8: "uint64_t"}[b.itemsize]
    digits = 2 * b.itemsize
    vals = [f"0x{int(v):0{digits}x}u" + ("ll" if b.itemsize == 8 else "") for v in b] or ["0"]
    lines, line = [], "   "
    for v in vals:
        if len(line) + len(v) + 2 > 96:
            lines.append(line)
            line = "   "
        line += " " + v + ","
    lines.append(line)
    return f"static const {ctype} {ident}[] = {{\n" + "\n".join(lines) + "\n};\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "fixtures")
    os.makedirs(out_dir, exist_ok=True)
    arrays, rows = [], []
    for stem, data, want, onnx_layout in cases():
        t = TensorProto.FromString(data)
        got = numpy_helper.to_array(t)
        assert got.shape == want.shape and got.dtype == want.dtype, stem
        assert np.array_equal(bits(got), bits(want)), stem  # onnx reads what we meant to write
        with open(os.path.join(out_dir, stem + ".pb"), "wb") as f:
            f.write(data)
        arrays.append(c_array(stem + "_bits", bits(got)))
        name = t.name if t.HasField("name") else ""
        dims = ", ".join(str(d) for d in got.shape) or "0"
        rows.append(
            f'    {{"{stem}.pb", "{name}", {t.data_type}, {got.ndim}, {{{dims}}}, {got.size}u, '
            f"{stem}_bits, {onnx_layout}}},"
        )
    header = [
        "/* Generated by gen_tensor_pb_fixtures.py; do not edit. Expected contents of the",
        " * fixtures: element bits as onnx's numpy_helper.to_array reads them, host byte order. */",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        "typedef struct expected_tensor {",
        "    const char *file;",
        "    const char *name;",
        "    int32_t dtype;",
        "    int32_t rank;",
        "    int64_t dims[4];",
        "    size_t count;",
        "    const void *bits;",
        "    int onnx_layout; /* from numpy_helper.from_array: the writer must give these bytes */",
        "} expected_tensor;",
        "",
    ]
    text = "\n".join(header) + "\n" + "\n".join(arrays) + "\n"
    text += "static const expected_tensor expected_tensors[] = {\n" + "\n".join(rows) + "\n};\n"
    with open(os.path.join(out_dir, "expected.h"), "w") as f:
        f.write(text)
    print(f"wrote {len(rows)} fixtures and expected.h to {out_dir}")


if __name__ == "__main__":
    main()
