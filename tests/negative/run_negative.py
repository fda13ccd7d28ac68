#!/usr/bin/env python3
"""Negative tests of the onnx2c command line: bad models and bad usage must give a clear error,
never a crash.

    run_negative.py --onnx2c build/onnx2c --dir DIR [--cc CC] [CASE...]

DIR holds what make_bad_models.py wrote. Without CASE every case runs; --list prints them.
For a refused model the contract (DESIGN.md) is: exit status 1, exactly one line on stderr,
    onnx2c: error: FILE: what is wrong
    onnx2c: error: FILE: node 'NAME' (OpType, opset N): what is wrong     (node-level errors)
and no output file left behind. Each case states the whole line it expects (the node, the op
and what is wrong, word for word), so a regression to a vaguer or wrong message fails. Usage
errors exit 2 with 'onnx2c: usage error: WHAT' and the usage hint, both checked word for word.
A signal is always a failure.
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

TIMEOUT = 60


class Fail(Exception):
    pass


def run(cmd, cwd=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Fail(f"timed out after {TIMEOUT}s: {' '.join(cmd)}")
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    print(f"$ {' '.join(cmd)}\n  -> exit {p.returncode}")
    for line in err.splitlines():
        print(f"  stderr: {line}")
    if p.returncode < 0:
        raise Fail(f"killed by signal {-p.returncode}")
    return p.returncode, out, err


class Runner:
    def __init__(self, onnx2c, d, cc, work):
        self.onnx2c, self.dir, self.cc, self.work = onnx2c, d, cc, work

    def path(self, name):
        return os.path.join(self.dir, name)

    def out(self, name):
        return os.path.join(self.work, name)

    def refused(self, model, want, args=()):
        """onnx2c MODEL must exit 1 with the one stderr line 'onnx2c: error: MODEL: WANT'
        (WANT word for word) and leave no output file."""
        out_c = self.out("refused.c")
        if os.path.exists(out_c):
            os.remove(out_c)
        rc, _, err = run([self.onnx2c, model, "-o", out_c, *args])
        if rc != 1:
            raise Fail(f"exit status {rc}, want 1")
        lines = [l for l in err.splitlines() if l.strip()]
        if len(lines) != 1:
            raise Fail(f"{len(lines)} stderr lines, want exactly 1")
        prefix = "onnx2c: error: " + model + ": "
        if not lines[0].startswith(prefix):
            raise Fail(f"stderr does not start with {prefix!r}")
        rest = lines[0][len(prefix):]
        if rest != want:
            raise Fail(f"message after the file name is {rest!r}, want {want!r}")
        if os.path.exists(out_c):
            raise Fail(f"a refused model left an output file {out_c}")
        stray = [f for f in os.listdir(self.work) if f.startswith(".refused.c.")]
        if stray:
            raise Fail(f"a refused model left temporary files {stray}")
        return rest

    def usage(self, args, want):
        """A usage error: exit 2, 'onnx2c: usage error: WANT' and the usage hint."""
        rc, _, err = run([self.onnx2c, *args])
        if rc != 2:
            raise Fail(f"usage error: exit status {rc}, want 2")
        lines = err.splitlines()
        expect = ["onnx2c: usage error: " + want, USAGE_HINT]
        if lines != expect:
            raise Fail(f"usage error: stderr {lines!r}, want {expect!r}")
        if not err.strip():
            raise Fail("usage error with nothing on stderr")

    def compiles(self, model, args, data=None):
        out_c = self.out("ok.c")
        rc, _, _ = run([self.onnx2c, model, "-o", out_c, "--harness", "--gemm=portable", *args])
        if rc != 0:
            raise Fail(f"exit status {rc}, want 0")
        if data:
            prog = self.out("ok")
            rc, _, _ = run([self.cc, "-std=c99", "-O1", out_c, "-o", prog, "-lm"])
            if rc != 0:
                raise Fail("generated C does not build")
            rc, _, _ = run([prog, "--require-outputs", data])
            if rc != 0:
                raise Fail(f"harness exit {rc}, want 0")


def sha1_of(path):
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


USAGE_HINT = "usage: onnx2c MODEL.onnx -o OUT.c [options]; onnx2c --help lists them"
NOT_ONNX = ("not a valid ONNX model (the protobuf could not be parsed; truncated or not an ONNX "
            "file?)")

CASES = {
    # name: (description, function(runner))
    "valid": ("a correct model compiles (sanity of this runner)",
              lambda r: r.compiles(r.path("valid.onnx"), [])),
    "unsupported_op": ("a standard op onnx2c does not implement",
                       lambda r: r.refused(r.path("unsupported_op.onnx"),
                                           "node 'dec0' (ImageDecoder, opset 17): unsupported operator")),
    "unknown_domain_op": ("an op of an unknown domain",
                          lambda r: r.refused(r.path("unknown_domain_op.onnx"),
                                              "node 'frob0' (Frobnicate, opset 1): operator domain "
                                              "'com.example' is not supported")),
    "missing_input": ("a node input that nothing defines",
                      lambda r: r.refused(r.path("missing_input.onnx"),
                                          "node 'add0' (Add, opset 17): reads 'Z', which no earlier "
                                          "node, graph input or initializer defines")),
    "unbound_dim": ("an unbound symbolic dim is refused and named",
                    lambda r: r.refused(r.path("unbound_dim.onnx"),
                                        "unbound symbolic dimensions: 'N'; bind them with --dim "
                                        "SYMBOL=N (or --shape INPUT=AxB)")),
    "unbound_dim_bound": ("--dim N=1 binds it: the model compiles and runs",
                          lambda r: r.compiles(r.path("unbound_dim.onnx"), ["--dim", "N=1"],
                                               r.path("unbound_dim_data/test_data_set_0"))),
    "unbound_dim_shape": ("--shape X=1x4 fixes it: the model compiles and runs",
                          lambda r: r.compiles(r.path("unbound_dim.onnx"), ["--shape", "X=1x4"],
                                               r.path("unbound_dim_data/test_data_set_0"))),
    "shape_input": ("a Reshape shape given at run time is refused, naming the graph input",
                    lambda r: r.refused(r.path("shape_input.onnx"),
                                        "node 'reshape0' (Reshape, opset 17): input 'shape' must be a "
                                        "compile-time constant; it depends on graph input 'shape' "
                                        "(--bind-input NAME=FILE.pb fixes an input's value)")),
    "shape_input_bound": ("--bind-input shape=FILE makes it a constant: compiles and runs",
                          lambda r: r.compiles(
                              r.path("shape_input.onnx"),
                              ["--bind-input", "shape=" + r.path("shape_input_data/shape.pb")],
                              r.path("shape_input_data/test_data_set_0"))),
    "bind_input_wrong_type": ("--bind-input with a tensor of another element type",
                              lambda r: r.refused(r.path("shape_input.onnx"),
                                                  "--bind-input shape: "
                                                  + r.path("shape_input_data/bad_shape.pb")
                                                  + " holds float32, the input is int64", [
                                  "--bind-input",
                                  "shape=" + r.path("shape_input_data/bad_shape.pb")])),
    "bind_input_not_an_input": ("--bind-input naming something that is no graph input",
                                lambda r: r.refused(r.path("shape_input.onnx"),
                                                    "--bind-input names 'nope', which is not an "
                                                    "input of the model (the inputs are 'X', "
                                                    "'shape')", [
                                    "--bind-input",
                                    "nope=" + r.path("shape_input_data/shape.pb")])),
    "truncated": ("a model file cut short",
                  lambda r: r.refused(r.path("truncated.onnx"), NOT_ONNX)),
    "not_onnx": ("a text file", lambda r: r.refused(r.path("not_onnx.onnx"), NOT_ONNX)),
    "empty": ("an empty file",
              lambda r: r.refused(r.path("empty.onnx"), "not a valid ONNX model (it has no graph)")),
    "no_such_file": ("a model path that does not exist",
                     lambda r: r.refused(r.path("does_not_exist.onnx"),
                                         "cannot open: No such file or directory")),
    "no_nodes": ("a graph without nodes (its output is its input) compiles",
                 lambda r: r.compiles(r.path("no_nodes.onnx"), [])),
    "ext_ok": ("external data at an offset inside the model's folder: compiles",
               lambda r: r.compiles(r.path("ext/ok.onnx"), [])),
    "ext_ok_link": ("external data through a symlink that stays inside the folder: compiles",
                    lambda r: r.compiles(r.path("ext/ok_link.onnx"), [])),
    "ext_ok_no_length": ("external data without a length runs to the end of the file",
                         lambda r: r.compiles(r.path("ext/ok_no_length.onnx"), [])),
    "ext_ok_checksum": ("external data with the SHA-1 checksum of its file: compiles",
                        lambda r: r.compiles(r.path("ext/ok_checksum.onnx"), [])),
    "ext_ok_checksum_tensor": ("a checksum of the tensor's own bytes (capitals): compiles",
                               lambda r: r.compiles(r.path("ext/ok_checksum_tensor.onnx"), [])),
    "ext_checksum_mismatch": ("external data that does not match its checksum",
                              lambda r: r.refused(r.path("ext/checksum_mismatch.onnx"),
                                                  "initializer 'W': its external data in "
                                                  "'weights.bin' does not match its checksum "
                                                  f"(SHA-1 {hashlib.sha1(b'other').hexdigest()}, "
                                                  "the file's is "
                                                  f"{sha1_of(r.path('ext/weights.bin'))}): the "
                                                  "file is corrupt or not the model's")),
    "ext_checksum_not_hex": ("an external data checksum that is not 40 hex digits",
                             lambda r: r.refused(r.path("ext/checksum_not_hex.onnx"),
                                                 "initializer 'W' has an external data checksum "
                                                 "that is not a SHA-1 digest (40 hex digits)")),
    "ext_absolute": ("external data at an absolute path",
                     lambda r: r.refused(r.path("ext/absolute.onnx"),
                                         "initializer 'W' has external data at an absolute path, "
                                         "which is refused (the location must be relative to the "
                                         "model's folder)")),
    "ext_dotdot": ("an external data location with '..'",
                   lambda r: r.refused(r.path("ext/dotdot.onnx"),
                                       "initializer 'W' has an external data location with '..', "
                                       "which is refused (the file must be inside the model's "
                                       "folder)")),
    "ext_symlink_escape": ("an external data symlink that resolves outside the model's folder",
                           lambda r: r.refused(r.path("ext/symlink_escape.onnx"),
                                               "initializer 'W' has an external data file that "
                                               "resolves outside the model's folder, which is "
                                               "refused")),
    "ext_missing_file": ("an external data file that does not exist",
                         lambda r: r.refused(r.path("ext/missing_file.onnx"),
                                             "initializer 'W': cannot open its external data file: "
                                             "No such file or directory")),
    "ext_no_location": ("external data without a location",
                        lambda r: r.refused(r.path("ext/no_location.onnx"),
                                            "initializer 'W' keeps its data in an external file but "
                                            "names no location")),
    "ext_empty_location": ("external data with an empty location",
                           lambda r: r.refused(r.path("ext/empty_location.onnx"),
                                               "initializer 'W' has external data with an empty "
                                               "location")),
    "ext_directory": ("an external data location that is a folder",
                      lambda r: r.refused(r.path("ext/directory.onnx"),
                                          "initializer 'W' has an external data location that is not "
                                          "a regular file")),
    "ext_offset_past_end": ("an external data offset past the end of the file",
                            lambda r: r.refused(r.path("ext/offset_past_end.onnx"),
                                                "initializer 'W' has an external data offset 20000 "
                                                "past the end of 'weights.bin' (12288 bytes)")),
    "ext_length_past_end": ("external data whose offset + length runs past the end",
                            lambda r: r.refused(r.path("ext/length_past_end.onnx"),
                                                "initializer 'W' has external data (offset 8192, "
                                                "length 8192) past the end of 'weights.bin' (12288 "
                                                "bytes)")),
    "ext_length_mismatch": ("an external data length that does not match the tensor's size",
                            lambda r: r.refused(r.path("ext/length_mismatch.onnx"),
                                                "initializer 'W' has 4096 bytes of external data, its "
                                                "shape needs 8192")),
    "ext_no_length_mismatch": ("external data to the end of a file of the wrong size",
                               lambda r: r.refused(r.path("ext/no_length_mismatch.onnx"),
                                                   "initializer 'W' has 12288 bytes of external data, "
                                                   "its shape needs 8192")),
    "ext_bad_offset": ("a negative external data offset",
                       lambda r: r.refused(r.path("ext/bad_offset.onnx"),
                                           "initializer 'W' has an external data offset that is not "
                                           "a byte count")),
    "ext_huge_offset": ("an external data offset past 64 bits",
                        lambda r: r.refused(r.path("ext/huge_offset.onnx"),
                                            "initializer 'W' has an external data offset that is not "
                                            "a byte count")),
    "bad_output_path": ("an output file that cannot be written", lambda r: bad_output(r)),
    "usage_no_args": ("no arguments", lambda r: r.usage([], "no model given")),
    "usage_unknown_option": ("an unknown option",
                             lambda r: r.usage([r.path("valid.onnx"), "-o", r.out("u.c"),
                                                "--no-such-option"],
                                               "unknown option '--no-such-option'")),
    "usage_option_typo": ("a misspelt option names the closest one",
                          lambda r: r.usage([r.path("valid.onnx"), "-o", r.out("u.c"), "--reprot"],
                                            "unknown option '--reprot' (did you mean --report?)")),
    "shape_unknown_input": ("--shape of a name that is no input lists the inputs",
                            lambda r: r.refused(r.path("unbound_dim.onnx"),
                                                "--shape names 'Y', which is not an input of the "
                                                "model (the inputs are 'X')", ["--shape", "Y=1x4"])),
    "dim_unknown_symbol": ("--dim of a symbol no input has lists the symbols",
                           lambda r: r.refused(r.path("unbound_dim.onnx"),
                                               "--dim names 'M', which is no symbolic dimension of "
                                               "the inputs (they have: 'N')", ["--dim", "M=1"])),
    "usage_missing_o": ("no -o", lambda r: r.usage([r.path("valid.onnx")],
                                                    "no output file given (-o OUT.c)")),
    "usage_o_without_value": ("-o without a file",
                              lambda r: r.usage([r.path("valid.onnx"), "-o"], "-o needs a value")),
    "usage_bad_gemm": ("--gemm=bogus",
                       lambda r: r.usage([r.path("valid.onnx"), "-o", r.out("u.c"), "--gemm=bogus"],
                                         "--gemm must be libxsmm or portable, not 'bogus'")),
    "usage_bad_bind_input": ("--bind-input without =FILE",
                             lambda r: r.usage([r.path("shape_input.onnx"), "-o", r.out("u.c"),
                                                "--bind-input", "shape"],
                                               "--bind-input expects INPUT=FILE.pb, got 'shape'")),
    "usage_bad_dim": ("--dim without =N",
                      lambda r: r.usage([r.path("unbound_dim.onnx"), "-o", r.out("u.c"), "--dim", "N"],
                                        "--dim expects NAME=N, got 'N'")),
}


# The catalogue of hostile and invalid models (make_bad_models.py hostile_models()): each is
# refused with exit 1 and exactly this line after the file name, within TIMEOUT.
HOSTILE = {
    "zero_outputs": (
        "a node with no outputs",
        "node 'r0' (Relu, opset 17): has no outputs"),
    "pad_empty_pads": (
        "Pad whose pads input is the empty name",
        "node 'pad0' (Pad, opset 17): a required input is missing (its name is empty)"),
    "einsum_empty_operand": (
        "Einsum with an empty operand name",
        "node 'e0' (Einsum, opset 17): operand 1 is missing (its name is empty)"),
    "deep_if": (
        "If nested 3,000 deep (refused before protobuf-c recurses)",
        "subgraphs nest more than 64 deep (--max-depth raises the limit)"),
    "deep_sequence_type": (
        "a sequence type nested 5,000 deep",
        "types nest more than 64 deep (--max-depth raises the limit)"),
    "constant_of_shape_bomb": (
        "ConstantOfShape folding to 4 GB",
        "node 'cos0' (ConstantOfShape, opset 17): folding output 'c' would make a "
        "constant of 4294967296 bytes, more than the limit of 67108864 "
        "(--max-folded-bytes)"),
    "tile_bomb": (
        "Tile folding to 2 GB",
        "node 'tile0' (Tile, opset 17): folding output 'c' would make a constant of "
        "2147483648 bytes, more than the limit of 67108864 (--max-folded-bytes)"),
    "pad_bomb": (
        "Pad folding to 4 GB",
        "node 'pad0' (Pad, opset 17): folding output 'c' would make a constant of "
        "4294967312 bytes, more than the limit of 67108864 (--max-folded-bytes)"),
    "fold_total_bomb": (
        "40 folded constants of 32 MB each",
        "node 'cos8' (ConstantOfShape, opset 17): constant folding has computed 301989888"
        " bytes, more than the limit of 268435456 (--max-total-folded-bytes)"),
    "function_bomb": (
        "nested function calls asking for 2^40 nodes",
        "the graph grows past 250000 nodes after function inlining and loop unrolling "
        "(--max-nodes raises the limit)"),
    "function_chain": (
        "a chain of 2,000 nested function calls",
        "node 'g64' (g64): function calls and subgraphs nest more than 64 deep "
        "(--max-depth raises the limit)"),
    "huge_arena": (
        "an intermediate of 2^46 bytes",
        "the planned arena needs 70368744177664 bytes, more than the limit of 4294967296 "
        "(--max-arena-bytes raises it)"),
    "conv_huge_pads": (
        "Conv pads of 2^62 (signed overflow)",
        "node 'conv0' (Conv, opset 17): kernel, strides, dilations and pads above 2^30 "
        "are not supported"),
    "conv_huge_dilations": (
        "Conv dilations of 2^62",
        "node 'conv0' (Conv, opset 17): kernel, strides, dilations and pads above 2^30 "
        "are not supported"),
    "pad_huge_pads": (
        "Pad pads of 2^62 (signed overflow)",
        "node 'pad0' (Pad, opset 17): pads of dim 1 (4611686018427387904, "
        "4611686018427387904) are out of range"),
    "pad_huge_negative_pads": (
        "Pad pads of -2^62",
        "node 'pad0' (Pad, opset 17): pads of dim 1 (-4611686018427387904, "
        "-4611686018427387904) are out of range"),
    "duplicate_graph_input": (
        "a graph input listed twice",
        "graph input 'X' is listed twice"),
    "constant_two_values": (
        "a Constant with two value attributes",
        "node 'c0' (Constant, opset 17): has 2 value attributes; ONNX allows exactly one"),
    "function_too_many_inputs": (
        "a function call with more inputs than the function",
        "node 'call0' (f): the call has 3 inputs and 1 outputs, function 'f' takes at "
        "most 2 and 1"),
    "function_too_many_outputs": (
        "a function call with more outputs than the function",
        "node 'call0' (f): the call has 2 inputs and 2 outputs, function 'f' takes at "
        "most 2 and 1"),
    "function_recursion": (
        "a function that calls itself",
        "node 'r' (r, domain local): function 'r' calls itself (recursion is not allowed "
        "in ONNX functions)"),
    "if_branch_output_counts": (
        "If branches with different output counts",
        "node 'if0' (If, opset 17): else_branch has 2 outputs, the node 1"),
    "too_many_outputs": (
        "a node with more outputs than its op",
        "node 'r0' (Relu, opset 17): has 2 outputs; output 1 ('Z') is not one this op "
        "computes"),
    "gather_nd_index_out_of_range": (
        "GatherND with constant indices out of range",
        "node 'g0' (GatherND, opset 17): index 5 is out of range for a dim of size 2"),
    "gather_elements_index_out_of_range": (
        "GatherElements with constant indices out of range",
        "node 'g0' (GatherElements, opset 17): index 9 is out of range for a dim of size "
        "2"),
    "scatter_nd_index_out_of_range": (
        "ScatterND with constant indices out of range",
        "node 's0' (ScatterND, opset 17): index 9 is out of range for a dim of size 4"),
    "scatter_elements_index_out_of_range": (
        "ScatterElements with constant indices out of range",
        "node 's0' (ScatterElements, opset 17): index -9 is out of range for a dim of "
        "size 4"),
    "gather_index_out_of_range": (
        "Gather with a constant index out of range",
        "node 'g0' (Gather, opset 17): index 4 is out of range for axis of size 4"),
    "control_chars_in_name": (
        "a node name with a newline and an escape sequence (escaped)",
        "node 'bad\\x0aname\\x1b[31m' (Frobnicate, opset 17): unsupported operator"),
    "byte_flipped": (
        "a model with flipped bytes",
        "not a valid ONNX model (the protobuf could not be parsed; truncated or not an "
        "ONNX file?)"),
    "wrong_wire_type": (
        "ModelProto.graph encoded as a varint",
        "not a valid ONNX model (the protobuf could not be parsed; truncated or not an "
        "ONNX file?)"),
    "length_past_end": (
        "a length prefix of 2^40 bytes",
        "not a valid ONNX model (the protobuf could not be parsed; truncated or not an "
        "ONNX file?)"),
    "negative_dim": (
        "a graph input with a negative dim",
        "'X' has a negative dimension (-4)"),
    "huge_dims_overflow": (
        "dims whose product overflows",
        "tensor size overflows (1099511627776 x 1099511627776)"),
    "raw_data_size_mismatch": (
        "raw_data shorter than the dims",
        "initializer 'W' has 10 bytes of raw data, its shape needs 16"),
    "typed_data_size_mismatch": (
        "float_data shorter than the dims",
        "initializer 'W' holds 3 elements, its shape needs 4"),
    "initializer_negative_dim": (
        "an initializer with a negative dim",
        "initializer 'W' has a negative dimension"),
    "initializer_numel_overflow": (
        "an initializer whose element count overflows 64 bits",
        "tensor size overflows (2147483648 x 2147483648)"),
    "initializer_without_data": (
        "an initializer whose shape needs 16 GiB and that holds no data",
        "initializer 'W' holds fewer elements than its shape needs (4294967296)"),
    "string_tensor": (
        "a string initializer",
        "initializer 'W' has element type string, which onnx2c does not support"),
    "sparse_constant": (
        "a Constant with a sparse value",
        "node 'c0' (Constant, opset 17): has no supported value attribute (value, "
        "value_float(s), value_int(s))"),
    "cycle": (
        "a cycle between two nodes",
        "node 'add0' (Add, opset 17): reads 'b', which no earlier node, graph input or "
        "initializer defines"),
    "duplicate_output_name": (
        "two nodes writing the same name",
        "node 'r1' (Relu, opset 17): output 'Y' is already defined (the graph is not in "
        "SSA form)"),
    "duplicate_initializer": (
        "two initializers of the same name",
        "initializer 'W' is unnamed or defined twice"),
    "missing_graph_output": (
        "a graph output nothing computes",
        "graph output 'Y' is not computed by any node"),
    "no_graph_outputs": (
        "a graph without outputs",
        "the graph has no outputs"),
    "unknown_opset_version": (
        "opset 999 of the default domain",
        "the model imports opset 999; onnx2c knows opsets up to 28"),
    "no_opset_import": (
        "a model without opset_import",
        "the model imports no operator set"),
    "unknown_domain": (
        "a node of an unknown domain",
        "node 'r0' (Relu, opset 0): operator domain 'com.nowhere' is not supported"),
    "conv_zero_strides": (
        "Conv with a zero stride",
        "node 'conv0' (Conv, opset 17): kernel, strides and dilations must be positive"),
    "conv_zero_dilations": (
        "Conv with a zero dilation",
        "node 'conv0' (Conv, opset 17): kernel, strides and dilations must be positive"),
    "conv_negative_pads": (
        "Conv with a negative pad",
        "node 'conv0' (Conv, opset 17): negative pads are not supported"),
    "conv_kernel_larger_than_input": (
        "a Conv kernel larger than its input",
        "node 'conv0' (Conv, opset 17): the window (3) is larger than the padded input "
        "(2)"),
    "conv_group_does_not_divide": (
        "Conv whose group does not divide the channels",
        "node 'conv0' (Conv, opset 17): group 2 does not divide 3 input and 2 output "
        "channels"),
    "maxpool_zero_kernel": (
        "MaxPool with a zero kernel",
        "node 'pool0' (MaxPool, opset 17): kernel, strides and dilations must be positive"),
    "transpose_repeated_perm": (
        "Transpose with a repeated perm entry",
        "node 't0' (Transpose, opset 17): perm is not a permutation of 0..1"),
    "reshape_two_minus_ones": (
        "Reshape with two -1 entries",
        "node 'reshape0' (Reshape, opset 17): more than one -1 in the target shape"),
    "split_sizes_mismatch": (
        "Split sizes that do not add up",
        "node 'split0' (Split, opset 17): split sizes add up to 7, the axis has 6"),
}


def hostile_complete(r):
    """Every model make_bad_models.py writes to hostile/ has its expected error here."""
    have = {f[:-5] for f in os.listdir(r.path("hostile")) if f.endswith(".onnx")}
    if have != set(HOSTILE):
        raise Fail(f"hostile/ models without a HOSTILE entry: {sorted(have - set(HOSTILE))}, "
                   f"entries without a model: {sorted(set(HOSTILE) - have)}")


CASES["hostile_catalogue_complete"] = ("every catalogue model has its expected error",
                                       hostile_complete)
for _name, (_desc, _pattern) in HOSTILE.items():
    CASES["hostile_" + _name] = (
        _desc, lambda r, n=_name, p=_pattern: r.refused(r.path(f"hostile/{n}.onnx"), p))


def output_is_input(r, opt):
    """OPT naming the input model (through a symlink for -o) is a usage error; the model stays."""
    model = os.path.join(r.work, "m.onnx")
    with open(r.path("valid.onnx"), "rb") as f:
        data = f.read()
    with open(model, "wb") as f:
        f.write(data)
    link = os.path.join(r.work, "link.onnx")
    if not os.path.lexists(link):
        os.symlink("m.onnx", link)
    target = link if opt == "-o" else model
    args = [model, "-o", r.out("o.c")] if opt != "-o" else [model]
    r.usage([*args, opt, target], f"{opt} '{target}' is the input model")
    with open(model, "rb") as f:
        if f.read() != data:
            raise Fail("the input model was modified")


def same_output_twice(r):
    r.usage([r.path("valid.onnx"), "-o", r.out("same.c"), "--header", r.out("./same.c")],
            f"-o and --header both write '{r.out('./same.c')}'")
    if os.path.exists(r.out("same.c")):
        raise Fail("an output was written")


def failed_compile_keeps_output(r):
    """A refused model leaves an existing output file as it was, and no temporary file."""
    out_c = r.out("kept.c")
    with open(out_c, "w") as f:
        f.write("/* previous output */\n")
    rc, _, _ = run([r.onnx2c, r.path("hostile/huge_arena.onnx"), "-o", out_c,
                    "--header", r.out("kept.h")])
    if rc != 1:
        raise Fail(f"exit status {rc}, want 1")
    with open(out_c) as f:
        if f.read() != "/* previous output */\n":
            raise Fail("the existing output was changed")
    stray = [f for f in os.listdir(r.work) if f.startswith(".kept.")]
    if stray or os.path.exists(r.out("kept.h")):
        raise Fail(f"files left behind: {stray}")


def outputs_written(r):
    """A successful compile writes every output under its own name, nothing else."""
    d = os.path.join(r.work, "all")
    os.makedirs(d, exist_ok=True)
    names = ["x.c", "x.h", "r.json", "e.onnx"]
    rc, _, _ = run([r.onnx2c, r.path("valid.onnx"), "-o", os.path.join(d, "x.c"),
                    "--header", os.path.join(d, "x.h"), "--report-json", os.path.join(d, "r.json"),
                    "--emit-onnx", os.path.join(d, "e.onnx")])
    if rc != 0:
        raise Fail(f"exit status {rc}, want 0")
    if sorted(os.listdir(d)) != sorted(names):
        raise Fail(f"the folder holds {sorted(os.listdir(d))}, want {sorted(names)}")
    if any(os.path.getsize(os.path.join(d, n)) == 0 for n in names):
        raise Fail("an output is empty")


CASES.update({
    "output_is_input": ("-o naming the input model (through a symlink)",
                        lambda r: output_is_input(r, "-o")),
    "report_json_is_input": ("--report-json naming the input model",
                             lambda r: output_is_input(r, "--report-json")),
    "emit_onnx_is_input": ("--emit-onnx naming the input model",
                           lambda r: output_is_input(r, "--emit-onnx")),
    "same_output_twice": ("--header and -o naming the same file", same_output_twice),
    "failed_compile_keeps_output": ("a refused model leaves an existing output untouched",
                                    failed_compile_keeps_output),
    "outputs_written": ("all four outputs are written, and no temporary file stays", outputs_written),
})


CASES.update({
    "sequence_position_input": ("SequenceAt at a position only known at run time",
                                lambda r: r.refused(r.path("sequence_position_input.onnx"),
                                                    "node 'at0' (SequenceAt, opset 17): input 'pos' "
                                                    "must be a compile-time constant; it depends on "
                                                    "graph input 'pos' (--bind-input NAME=FILE.pb "
                                                    "fixes an input's value)")),
    "sequence_position_range": ("SequenceAt past the end of a static-length sequence",
                                lambda r: r.refused(r.path("sequence_position_range.onnx"),
                                                    "node 'at0' (SequenceAt, opset 17): position 4 "
                                                    "is out of range for a sequence of 4")),
    "sequence_tensor_use": ("a sequence read by an op that takes a tensor",
                            lambda r: r.refused(r.path("sequence_tensor_use.onnx"),
                                                "node 'id0' (Identity, opset 17): input 'S' has no "
                                                "known shape (it is a sequence)")),
    "sequence_map": ("SequenceMap (not resolved at compile time)",
                     lambda r: r.refused(r.path("sequence_map.onnx"),
                                         "node 'map0' (SequenceMap, opset 17): SequenceMap is not "
                                         "supported")),
    "contrib_nchwc": ("onnxruntime's NCHWc layout ops (a model saved at ORT_ENABLE_ALL)",
                      lambda r: r.refused(r.path("contrib_nchwc.onnx"),
                                          "node 'reorder0' (ReorderInput, opset 1): operator "
                                          "domain 'com.microsoft.nchwc' is onnxruntime's "
                                          "layout-specific form (saved at ORT_ENABLE_ALL); save "
                                          "the model at ORT_ENABLE_EXTENDED instead")),
    "contrib_unsupported": ("a com.microsoft op onnx2c does not implement",
                            lambda r: r.refused(r.path("contrib_unsupported.onnx"),
                                                "node 'inv0' (Inverse, opset 1): com.microsoft "
                                                "operator 'Inverse' is not supported")),
    "contrib_attention_mask4d": ("com.microsoft Attention with a 4-D (Megatron) mask_index",
                                 lambda r: r.refused(r.path("contrib_attention_mask4d.onnx"),
                                                     "node 'attn0' (Attention, opset 1): a 4-D "
                                                     "mask_index (Megatron) is not supported "
                                                     "(onnxruntime's CPU kernel does not run it "
                                                     "either)")),
    "contrib_attention_emit_onnx": ("--emit-onnx of an opset-17 model whose com.microsoft "
                                    "Attention became ONNX Attention (opset 23)",
                                    lambda r: r.refused(
                                        r.path("contrib_attention_opset17.onnx"),
                                        "node 'attn1/Attention4' (Attention, opset 23): "
                                        "--emit-onnx cannot write it: the compiler made an "
                                        "ONNX Attention, an op of opset 23, and the model "
                                        "imports opset 17 (convert the model to opset 23 "
                                        "first)", ["--emit-onnx", r.out("refused.onnx")])),
    "contrib_gqa_padded": ("GroupQueryAttention over padded sequences (seqlens_k)",
                           lambda r: r.refused(r.path("contrib_gqa_padded.onnx"),
                                               "node 'gqa0' (GroupQueryAttention, opset 1): "
                                               "seqlens_k[1] = 1: padded sequences are not "
                                               "supported (all must be total_sequence_length - 1 "
                                               "= 2)")),
})


def bad_output(r):
    """Every output (-o, --header, --report-json, --emit-onnx) into a folder that does not
    exist: one line naming the model, like every error, then the output; nothing is left
    behind (the -o temporary of the later outputs' cases is removed)."""
    model = r.path("valid.onnx")
    missing = os.path.join(r.work, "no_such_dir")
    good_c = r.out("bad_output_ok.c")
    for opt in ("-o", "--header", "--report-json", "--emit-onnx"):
        target = os.path.join(missing, "x.out")
        args = ["-o", target] if opt == "-o" else ["-o", good_c, opt, target]
        rc, _, err = run([r.onnx2c, model, *args])
        if rc != 1:
            raise Fail(f"{opt}: exit status {rc}, want 1")
        want = [f"onnx2c: error: {model}: cannot write '{target}': No such file or directory"]
        if err.splitlines() != want:
            raise Fail(f"{opt}: stderr {err.splitlines()!r}, want {want!r}")
        left = [f for f in os.listdir(r.work) if "bad_output_ok" in f]
        if left:
            raise Fail(f"{opt}: left behind {left}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--onnx2c")
    ap.add_argument("--dir", help="directory written by make_bad_models.py")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("--names", action="store_true", help="print the case names (for CMake)")
    ap.add_argument("cases", nargs="*")
    a = ap.parse_args()
    if a.names:
        print(";".join(CASES), end="")
        return 0
    if a.list:
        for name, (desc, _) in CASES.items():
            print(f"{name:24} {desc}")
        return 0
    if not a.onnx2c or not a.dir:
        ap.error("--onnx2c and --dir are required")
    unknown = [c for c in a.cases if c not in CASES]
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; see --list")
    if not os.path.exists(os.path.join(a.dir, "valid.onnx")):
        sys.exit(f"run_negative: no models in {a.dir}: run make_bad_models.py {a.dir} first")
    onnx2c = os.path.abspath(a.onnx2c)
    failed = []
    with tempfile.TemporaryDirectory(prefix="onnx2c-neg-") as work:
        r = Runner(onnx2c, os.path.abspath(a.dir), a.cc, work)
        for name in a.cases or list(CASES):
            desc, fn = CASES[name]
            print(f"--- {name}: {desc}")
            try:
                fn(r)
                print(f"ok: {name}")
            except Fail as e:
                print(f"FAIL: {name}: {e}")
                failed.append(name)
    if failed:
        print(f"\n{len(failed)} negative test(s) failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
