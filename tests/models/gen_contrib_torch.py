#!/usr/bin/env python3
"""Sequence test models: what the dynamo exporter writes for torch.split / torch.chunk when
it is called with optimize=False (SplitToSequence + SequenceAt), with reference outputs.

Developer-run; the results are committed, so the tests need neither torch nor this script.
From the repository root, with the venv of tests/models/requirements-dev.txt:

    .venv-torch/bin/python tests/models/gen_contrib_torch.py

Writes tests/models/contrib_split_chunk/model.onnx and test_data_set_0/ (input_0.pb,
output_<i>.pb). Model (a ShuffleNetV2 channel split and a q/k/v split of a GPT block, in
miniature): x [2, 8, 4] -> chunk(2, dim=1) -> cat([b * 2, a]); split([3, 2, 3], dim=1) ->
q + v, k.

Reference outputs: onnxruntime, CPU, one thread, graph optimisations off, checked against
PyTorch eager (allclose rtol 1e-5, atol 1e-6). The exported model is kept as the exporter
wrote it, except for the node metadata pkg.torch.onnx.stack_trace (it holds paths of this
machine).
"""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from onnx import numpy_helper

HERE = Path(__file__).resolve().parent


class SplitChunk(torch.nn.Module):
    def forward(self, x):
        a, b = torch.chunk(x, 2, dim=1)
        q, k, v = torch.split(x, [3, 2, 3], dim=1)
        return torch.cat([b * 2.0, a], dim=1), q + v, k


def strip_stack_traces(m):
    for n in m.graph.node:
        keep = [p for p in n.metadata_props if p.key != "pkg.torch.onnx.stack_trace"]
        del n.metadata_props[:]
        n.metadata_props.extend(keep)


def reference(model_bytes, x):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    s = ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])
    return s.run(None, {s.get_inputs()[0].name: x})


def main():
    x = np.random.default_rng(10).standard_normal((2, 8, 4)).astype(np.float32)
    model = SplitChunk().eval()
    m = torch.onnx.export(model, (torch.from_numpy(x),), dynamo=True, optimize=False).model_proto
    strip_stack_traces(m)
    ops = [n.op_type for n in m.graph.node]
    if "SplitToSequence" not in ops or "SequenceAt" not in ops:
        raise SystemExit(f"error: the exporter no longer writes sequences here: {ops}")
    onnx.checker.check_model(m, full_check=True)
    data = m.SerializeToString()
    outs = reference(data, x)
    with torch.no_grad():
        want = model(torch.from_numpy(x))
    for got, w in zip(outs, want):
        np.testing.assert_allclose(got, w.numpy(), rtol=1e-5, atol=1e-6)
    d = HERE / "contrib_split_chunk"
    (d / "test_data_set_0").mkdir(parents=True, exist_ok=True)
    (d / "model.onnx").write_bytes(data)
    (d / "test_data_set_0" / "input_0.pb").write_bytes(
        numpy_helper.from_array(x).SerializeToString())
    for i, o in enumerate(outs):
        (d / "test_data_set_0" / f"output_{i}.pb").write_bytes(
            numpy_helper.from_array(o).SerializeToString())
    print(f"contrib_split_chunk: {len(ops)} nodes: {' '.join(ops)}")


if __name__ == "__main__":
    main()
