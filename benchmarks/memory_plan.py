#!/usr/bin/env python3
"""Arena bytes of every test model next to its memory bounds (figures only, no asserts).

    .venv/bin/python benchmarks/memory_plan.py [--onnx2c build/onnx2c] [--baseline OTHER_ONNX2C]
        [--markdown] [-- EXTRA ONNX2C OPTIONS]

Compiles each tests/models/*/model.onnx, tests/frontend/models/*/model.onnx and
examples/mlp/model.onnx with `--report-json` and prints one row per model: the arena
(`arena_bytes`, what NAME_ARENA_BYTES should be), the live lower bound of onnx2c's own
schedule (`arena_lower_bound_bytes`, scratch included), the node-order bound
(`node_order_bound_bytes`: tensors alive at one step of the model's own node order, no
fusion, no in-place), the outputs written in place, and arena / bound ratios. With
--baseline, a second compiler's arena is shown first (e.g. a build of an older commit).
Models that a compiler refuses (the frontend's negative cases) are skipped.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def model_dirs():
    dirs = sorted((REPO / "tests" / "models").glob("*/model.onnx"))
    dirs += sorted((REPO / "tests" / "frontend" / "models").glob("*/model.onnx"))
    dirs += [REPO / "examples" / "mlp" / "model.onnx"]
    return [p.parent for p in dirs if p.exists()]


def report(onnx2c, model, extra, tmp):
    out = os.path.join(tmp, "out.c")
    js = os.path.join(tmp, "r.json")
    if os.path.exists(js):
        os.remove(js)
    r = subprocess.run([onnx2c, str(model / "model.onnx"), "-o", out, "--report-json", js] + extra,
                       capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(js):
        return None
    with open(js) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onnx2c", default=str(REPO / "build" / "onnx2c"))
    ap.add_argument("--baseline", help="another onnx2c whose arena is shown for comparison")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    ap.add_argument("extra", nargs="*", help="extra onnx2c options (after --)")
    args = ap.parse_args()

    head = ["model"] + (["arena (baseline)"] if args.baseline else []) + [
        "arena", "live lower bound", "node-order bound", "in place", "arena/lower", "arena/node-order"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for d in model_dirs():
            r = report(args.onnx2c, d, args.extra, tmp)
            if r is None:
                continue
            base = report(args.baseline, d, args.extra, tmp) if args.baseline else None
            a, lb, nb = r["arena_bytes"], r["arena_lower_bound_bytes"], r.get("node_order_bound_bytes")
            row = [d.name]
            if args.baseline:
                row.append(str(base["arena_bytes"]) if base else "-")
            row += [str(a), str(lb), str(nb) if nb is not None else "-", str(r.get("arena_in_place", "-")),
                    f"{a / lb:.2f}" if lb else "-", f"{a / nb:.2f}" if nb else "-"]
            rows.append(row)
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|---|" + "---:|" * (len(head) - 1))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
        print("  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(head, widths))))
        for row in rows:
            print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
