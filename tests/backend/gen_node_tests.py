#!/usr/bin/env python3
"""Writes the ONNX backend tests of the installed onnx package as files.

    gen_node_tests.py OUTDIR [--only NAMES_FILE] [--force]

The onnx wheel does not ship the node test data; it ships the code that makes it
(onnx.backend.test.case.node). This script runs that code and writes each case in the
standard layout, byte for byte as onnx/backend/test/cmd_tools.py's generate_data does:

    OUTDIR/<name>/model.onnx
    OUTDIR/<name>/test_data_set_<i>/input_<j>.pb, output_<j>.pb   (serialized TensorProto)

The model suites the wheel ships as files (simple, pytorch-converted, pytorch-operator) are
copied into the same layout; their manifest "op" is the suite's name in parentheses. ("real"
needs a download and "light" has no input data: both are left out.)

Only cases whose graph inputs and outputs are all tensors are written (onnx2c has no
sequence, map or optional values); the others are listed in OUTDIR/skipped.txt.
OUTDIR/manifest.json maps each written name to {"op", "domain", "opset", "expanded",
"rtol", "atol", "scope"} ("op" of an *_expanded case is the op whose function body it tests;
"scope" is "numeric", or what the conformance goal leaves out: "strings", "sequences",
"optionals", "training").

--only NAMES_FILE writes only the names listed there (first word of each line; '#'
starts a comment). Re-running with the same onnx version, script and names does
nothing (OUTDIR/.stamp) unless --force is given.
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import warnings


def read_names(path):
    names = []
    with open(path) as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if words:
                names.append(words[0])
    return names


def is_tensor_graph(model):
    g = model.graph
    return all(v.type.HasField("tensor_type") for v in list(g.input) + list(g.output))


SEQUENCE_OPS = {"SequenceConstruct", "SequenceEmpty", "SequenceAt", "SequenceInsert",
                "SequenceErase", "SequenceLength", "SequenceMap", "SplitToSequence",
                "ConcatFromSequence"}


def scope_of(model):
    """'numeric', or why the issue leaves the test out: 'strings', 'sequences', 'optionals',
    'training' (the ai.onnx.preview.training domain)."""
    g = model.graph
    values = list(g.input) + list(g.output) + list(g.value_info)
    if any(v.type.tensor_type.elem_type == 8 for v in values) or \
            any(t.data_type == 8 for t in g.initializer):
        return "strings"
    for n in g.node:
        if n.domain == "ai.onnx.preview.training":
            return "training"
        if n.op_type in SEQUENCE_OPS:
            return "sequences"
        if n.op_type.startswith("Optional"):
            return "optionals"
        if any(a.t.data_type == 8 for a in n.attribute):  # a string tensor attribute
            return "strings"
    return "numeric"


def write_case(case, case_dir):
    from onnx import TensorProto, numpy_helper

    if os.path.exists(case_dir):
        shutil.rmtree(case_dir)
    os.makedirs(case_dir)
    with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
        f.write(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        ds = os.path.join(case_dir, f"test_data_set_{i}")
        os.makedirs(ds)
        for kind, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                if isinstance(value, TensorProto):
                    data = value.SerializeToString()
                else:
                    data = numpy_helper.from_array(value, infos[j].name).SerializeToString()
                with open(os.path.join(ds, f"{kind}_{j}.pb"), "wb") as f:
                    f.write(data)


MODEL_SUITES = ("simple", "pytorch-converted", "pytorch-operator")


def copy_model_suites(outdir, only, manifest, skipped):
    """Copies the on-disk model tests of MODEL_SUITES; names clashing with a node test get the
    suite as a prefix."""
    import onnx
    from onnx.backend.test.loader import DATA_DIR

    for suite in MODEL_SUITES:
        root = os.path.join(DATA_DIR, suite)
        for name in sorted(os.listdir(root)):
            src = os.path.join(root, name)
            if not os.path.exists(os.path.join(src, "model.onnx")):
                continue
            dst_name = name if name not in manifest else f"{suite}_{name}"
            if only is not None and dst_name not in only:
                continue
            model = onnx.load(os.path.join(src, "model.onnx"))
            if not is_tensor_graph(model):
                skipped.append(dst_name)
                continue
            tol = {"rtol": 1e-3, "atol": 1e-7}
            if os.path.exists(os.path.join(src, "data.json")):
                with open(os.path.join(src, "data.json")) as f:
                    tol.update({k: v for k, v in json.load(f).items() if k in tol})
            dst = os.path.join(outdir, dst_name)
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(src, dst)
            opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
            manifest[dst_name] = {"op": f"({suite})", "domain": "", "opset": opset,
                                  "expanded": False, "suite": suite, "scope": scope_of(model),
                                  **tol}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--only", metavar="NAMES_FILE", action="append", default=[],
                    help="write only the tests named in this file (may be repeated)")
    ap.add_argument("--force", action="store_true", help="regenerate even if up to date")
    args = ap.parse_args()

    import onnx

    only = None
    if args.only:
        only = set()
        for p in args.only:
            only.update(read_names(p))

    h = hashlib.sha256()
    h.update(onnx.__version__.encode())
    with open(__file__, "rb") as f:
        h.update(f.read())
    h.update(repr(sorted(only) if only is not None else None).encode())
    stamp = h.hexdigest()
    stamp_path = os.path.join(args.outdir, ".stamp")
    if not args.force and os.path.exists(stamp_path):
        with open(stamp_path) as f:
            if f.read().strip() == stamp:
                print(f"gen_node_tests: {args.outdir} is up to date")
                return 0

    warnings.filterwarnings("ignore")  # overflow/divide warnings of the reference code
    import onnx.backend.test.case.node as node_cases

    cases = node_cases.collect_testcases(None)
    os.makedirs(args.outdir, exist_ok=True)
    if os.path.exists(stamp_path):
        os.remove(stamp_path)

    manifest, skipped, op_of = {}, [], {}
    for case in cases:
        model = case.model
        if "_expanded" in case.name:
            base = case.name.split("_expanded")[0]
            op, domain = op_of.get(base, ("?", ""))
            expanded = True
        else:
            node = model.graph.node[0]
            op, domain = node.op_type, node.domain
            op_of[case.name] = (op, domain)
            expanded = False
        if only is not None and case.name not in only:
            continue
        if not is_tensor_graph(model):
            skipped.append(case.name)
            continue
        opset = next((o.version for o in model.opset_import
                      if o.domain in ((domain,) if domain not in ("", "ai.onnx") else ("", "ai.onnx"))), None)
        write_case(case, os.path.join(args.outdir, case.name))
        manifest[case.name] = {"op": op, "domain": domain, "opset": opset, "expanded": expanded,
                               "rtol": case.rtol, "atol": case.atol, "scope": scope_of(model)}

    copy_model_suites(args.outdir, only, manifest, skipped)

    if only is not None:
        unknown = sorted(only - set(manifest) - set(skipped))
        for name in unknown:
            print(f"gen_node_tests: warning: no node test named {name}", file=sys.stderr)

    with open(os.path.join(args.outdir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    with open(os.path.join(args.outdir, "skipped.txt"), "w") as f:
        f.write("".join(n + "\n" for n in sorted(skipped)))
    with open(stamp_path, "w") as f:
        f.write(stamp + "\n")
    print(f"gen_node_tests: wrote {len(manifest)} backend tests to {args.outdir} "
          f"(skipped {len(skipped)} with non-tensor values; onnx {onnx.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
