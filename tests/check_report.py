"""The embedded figures of --report-json (issue 11), checked against independent facts:
the model's own input/output sizes (read with onnx), the sum of the per-layer MFLOPs, every
arena placement inside the arena, and which layers of an int8 QDQ model run in integers; the
--dot graph and the generated file's schedule comment against the same report (one box and one
line per layer, with its placement and bytes), the dot file through Graphviz when installed.
    check_report.py ONNX2C WORK_DIR REPO_DIR"""
import json, os, re, shutil, subprocess, sys
import numpy as np
import onnx
from onnx import helper

onnx2c, work, repo = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
fails = []


def report(model):
    out = os.path.join(work, os.path.basename(os.path.dirname(model)))
    subprocess.run([onnx2c, model, "-o", out + ".c", "--report-json", out + ".json",
                    "--dot", out + ".dot"], check=True)
    text = subprocess.run([onnx2c, model, "-o", out + ".c", "--report"], check=True,
                          capture_output=True, text=True).stdout
    return json.load(open(out + ".json")), text, out


def check_dot(name, r, out):
    """One box per layer, in order, showing the layer's op, placement, bytes and arithmetic;
    each graph output has an edge into it; Graphviz accepts the file."""
    dot = open(out + ".dot").read()
    boxes = re.findall(r'^  n(\d+) \[label="(\d+): ([^ ]+) .*\\n(\S+), (\d+) bytes\\n(\w+)"\];$',
                       dot, re.M)
    if len(boxes) != len(r["layers"]):
        fails.append(f"{name}: --dot has {len(boxes)} boxes for {len(r['layers'])} layers")
    for (i, step, ops, where, nbytes, arith), l in zip(boxes, r["layers"]):
        if (int(i), int(step), ops.split("+")[0], where, int(nbytes), arith) != (
                int(step), len([b for b in boxes if int(b[0]) < int(i)]), l["op"],
                l["placement"], l["bytes"], l["arithmetic"]):
            fails.append(f"{name}: --dot box n{i} ({ops} {where} {nbytes}) is not layer {l}")
    for k in range(len(re.findall(r"^  out\d+ \[", dot, re.M))):
        if not re.search(rf"^  (n|in)\d+ -> out{k};$", dot, re.M):
            fails.append(f"{name}: --dot: nothing flows into output {k}")
    if shutil.which("dot"):
        svg = subprocess.run(["dot", "-Tsvg", out + ".dot"], capture_output=True, text=True)
        if svg.returncode or "<svg" not in svg.stdout:
            fails.append(f"{name}: dot -Tsvg rejects the --dot file: {svg.stderr.strip()}")
    # the generated file's schedule comment: one line per layer, same placement and bytes
    c = open(out + ".c").read()
    lines = re.findall(r"^ \* +(\d+): (\S+) .* (\S+)  (\d+)$", c.split("*/", 2)[1], re.M)
    if [(int(s), o.split("+")[0], p, int(b)) for s, o, p, b in lines] != [
            (i, l["op"], l["placement"], l["bytes"]) for i, l in enumerate(r["layers"])]:
        fails.append(f"{name}: the schedule comment of the C file does not list the layers")


def io_bytes(model, kind):
    m = onnx.load(model)
    inits = {i.name for i in m.graph.initializer}
    total = 0
    for v in getattr(m.graph, kind):
        if v.name in inits:
            continue
        t = v.type.tensor_type
        n = int(np.prod([d.dim_value for d in t.shape.dim]))
        total += n * np.dtype(helper.tensor_dtype_to_np_dtype(t.elem_type)).itemsize
    return total


for name in ("examples/mlp", "tests/models/lenet5", "tests/models/qdq_cnn_s8_pt"):
    model = os.path.join(repo, name, "model.onnx")
    r, text, out = report(model)
    check_dot(name, r, out)
    want_in, want_out = io_bytes(model, "input"), io_bytes(model, "output")
    if (r["input_bytes"], r["output_bytes"]) != (want_in, want_out):
        fails.append(f"{name}: input/output bytes {r['input_bytes']}/{r['output_bytes']}, "
                     f"the model says {want_in}/{want_out}")
    if not 0 < r["code_bytes_estimate"] or r["flash_bytes_estimate"] != r["weight_bytes"] + r["code_bytes_estimate"]:
        fails.append(f"{name}: flash_bytes_estimate {r['flash_bytes_estimate']} is not weights "
                     f"{r['weight_bytes']} + code {r['code_bytes_estimate']}")
    if f"flash: {r['flash_bytes_estimate']} bytes (weights {r['weight_bytes']} + code about {r['code_bytes_estimate']}" not in text:
        fails.append(f"{name}: --report does not give the flash total with the code estimate")
    if r["ram_bytes"] != r["arena_bytes"] + want_in + want_out:
        fails.append(f"{name}: ram_bytes {r['ram_bytes']} is not arena + inputs + outputs")
    if len(r["layers"]) != r["nodes_after"]:
        fails.append(f"{name}: {len(r['layers'])} layers for {r['nodes_after']} nodes")
    if abs(sum(l["mflops"] for l in r["layers"]) - r["mflops"]) > 1e-4:
        fails.append(f"{name}: layer MFLOPs do not add up to {r['mflops']}")
    for l in r["layers"]:
        if l["placement"].startswith("arena@"):
            off = int(l["placement"][6:])
            if off < 0 or off + l["bytes"] > r["arena_bytes"]:
                fails.append(f"{name}: layer {l['name']} at {off}+{l['bytes']} is outside the arena")
        if l["scratch_bytes"] and not (0 <= l["scratch_offset"] and l["scratch_offset"] + l["scratch_bytes"] <= r["arena_bytes"]):
            fails.append(f"{name}: layer {l['name']}'s scratch at {l['scratch_offset']}+{l['scratch_bytes']} is outside the arena")
    if f"RAM: {r['ram_bytes']} bytes" not in text or len(text.split("layers (")[1].splitlines()) != len(r["layers"]) + 1:
        fails.append(f"{name}: --report does not show the RAM total and one line per layer")
    if "qdq" in name and not any(l["scratch_bytes"] for l in r["layers"] if l["op"] == "QLinearConv"):
        fails.append(f"{name}: no QLinearConv reports its scratch")
    if "qdq" in name:
        kinds = {l["op"]: l["arithmetic"] for l in r["layers"]}
        if kinds.get("QLinearConv") != "integer" or kinds.get("DequantizeLinear") != "float":
            fails.append(f"{name}: integer layers not reported as such: {kinds}")

for f in fails:
    print("check_report:", f)
print(f"check_report: {3 - len({f.split(':')[0] for f in fails})} of 3 models ok")
sys.exit(1 if fails else 0)
