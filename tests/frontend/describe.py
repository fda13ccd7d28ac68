#!/usr/bin/env python3
"""Print what the frontend test models contain (needs only onnx).

    describe.py [NAME...]          node lists: ops, domains, attributes, subgraphs, functions
    describe.py --table [NAME...]  the README table: op histogram (graph, functions, If
                                   branches) and the expected result from expected.json

Without NAME: every model under tests/frontend/models, sorted by name.
"""

import json
import sys

import onnx

import frontend_common as fc


def names(args):
    if args:
        return args
    return sorted(p.parent.name for p in fc.MODELS.glob("*/model.onnx"))


def expected_text(exp):
    if exp.get("refuse"):
        return "refused (error, exit 1)"
    if exp.get("ops_after"):
        return "`" + json.dumps(exp["ops_after"], sort_keys=True) + "`"
    if exp.get("fused_loops"):
        return f"{exp['fused_loops']} fused elementwise loop"
    if exp.get("ops_after_forbidden"):
        return "no " + ", ".join(exp["ops_after_forbidden"])
    return "?"


def table(model_names):
    print("| model | ops (graph; functions; If branches) | frontend result |")
    print("|---|---|---|")
    for name in model_names:
        m = onnx.load(str(fc.MODELS / name / "model.onnx"), load_external_data=False)
        exp = json.loads((fc.MODELS / name / "expected.json").read_text())
        parts = []
        for scope, c in fc.histograms(m).items():
            label = scope.replace("pkg.onnxscript.torch_lib.common::", "common::") \
                         .replace("pkg.onnxscript.torch_lib::", "torch_lib::")
            ops = fc.format_counter(c).replace("pkg.onnxscript.torch_lib.common::", "common::") \
                                      .replace("pkg.onnxscript.torch_lib::", "torch_lib::")
            parts.append(ops if label == "graph" else f"*{label}*: {ops}")
        print(f"| `{name}` | {'<br>'.join(parts)} | {expected_text(exp)} |")


def main(argv):
    if argv and argv[0] == "--table":
        table(names(argv[1:]))
        return 0
    for name in names(argv):
        m = onnx.load(str(fc.MODELS / name / "model.onnx"), load_external_data=False)
        print(f"== {name}")
        print(fc.describe(m))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
