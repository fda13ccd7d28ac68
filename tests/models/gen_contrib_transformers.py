#!/usr/bin/env python3
"""com.microsoft transformer test models written by onnxruntime's transformer optimiser
(onnxruntime.transformers.optimizer), with reference outputs.

Developer-run; the results are committed, so the tests need neither torch nor this script.
The optimiser needs sympy: from the repository root, with the venv of
tests/models/requirements-dev.txt plus tests/models/requirements-gen.txt,

    .venv-torch/bin/pip install -r tests/models/requirements-gen.txt
    .venv-torch/bin/python tests/models/gen_contrib_transformers.py

Model: a two-layer BERT encoder in miniature (vocabulary 50, hidden 32, 4 heads, feed-forward
128 = 4 x hidden as in BERT, sequence 8, batch 2), written as HuggingFace's BertModel computes
it (word + position + token-type embeddings, LayerNorm, an additive mask (1 - mask) * -10000,
scaled dot-product attention, GELU), exported by the TorchScript exporter at opset 17 and
optimised with model_type="bert":

    contrib_bert   both optimised encoders in one model (the second one's names prefixed
                   with "mha/", the inputs shared; outputs y and mha/y):
                   EmbedLayerNormalization, Attention (its mask_index from
                   EmbedLayerNormalization), SkipLayerNormalization and BiasGelu; and the same
                   with FusionOptions.use_multi_head_attention, MultiHeadAttention (its
                   key_padding_mask [B, S]) in place of Attention

The optimised models are converted to opset 23 (onnx.version_converter), the opset of the ONNX
Attention op that onnx2c lowers these ops to, so that the --emit-onnx tests can run the
optimised graph in onnxruntime. Inputs: input_ids, attention_mask (the second sequence padded
after 5 tokens), token_type_ids (int64, as exported).

Reference outputs: onnxruntime, CPU, one thread, graph optimisations off, on the saved model;
checked against PyTorch eager (allclose rtol 1e-4, atol 1e-5). The exported model is kept as
the tools wrote it.
"""

import math
from pathlib import Path

import numpy as np
import onnx
import torch
from gen_contrib_models import run_feeds  # this folder's: onnxruntime, CPU, one thread
from onnx import numpy_helper, version_converter
from onnxruntime.transformers import optimizer
from onnxruntime.transformers.fusion_options import FusionOptions

HERE = Path(__file__).resolve().parent
V, D, N, F, S, B = 50, 32, 4, 128, 8, 2


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v = (torch.nn.Linear(D, D) for _ in range(3))
        self.o = torch.nn.Linear(D, D)
        self.ln1 = torch.nn.LayerNorm(D, eps=1e-12)
        self.f1, self.f2 = torch.nn.Linear(D, F), torch.nn.Linear(F, D)
        self.ln2 = torch.nn.LayerNorm(D, eps=1e-12)

    def heads(self, x):
        return x.view(x.size(0), x.size(1), N, D // N).permute(0, 2, 1, 3)

    def forward(self, h, mask):
        q, k, v = self.heads(self.q(h)), self.heads(self.k(h)), self.heads(self.v(h))
        a = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(D // N) + mask
        c = torch.matmul(torch.nn.functional.softmax(a, dim=-1), v).permute(0, 2, 1, 3)
        c = c.contiguous().view(h.size(0), h.size(1), D)
        h = self.ln1(self.o(c) + h)
        return self.ln2(self.f2(torch.nn.functional.gelu(self.f1(h))) + h)


class Bert(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.word = torch.nn.Embedding(V, D)
        self.pos = torch.nn.Embedding(16, D)
        self.token_type = torch.nn.Embedding(2, D)
        self.ln = torch.nn.LayerNorm(D, eps=1e-12)
        self.layers = torch.nn.ModuleList([Layer(), Layer()])
        self.register_buffer("position_ids", torch.arange(16).expand((1, -1)))

    def forward(self, ids, mask, types):
        pos = self.position_ids[:, : ids.size(1)]
        h = self.ln(self.word(ids) + self.pos(pos) + self.token_type(types))
        m = (1.0 - mask[:, None, None, :].to(torch.float32)) * -10000.0
        for layer in self.layers:
            h = layer(h, m)
        return h


def write(name, model, feeds, want):
    ops = sorted({n.op_type for n in model.graph.node if n.domain == "com.microsoft"})
    if set(want) - set(ops):
        raise SystemExit(f"error: {name}: the optimiser did not write {want}: {ops}")
    outs = run_feeds(model, feeds)
    d = HERE / name
    (d / "test_data_set_0").mkdir(parents=True, exist_ok=True)
    (d / "model.onnx").write_bytes(model.SerializeToString())
    for i, a in enumerate(feeds.values()):
        (d / "test_data_set_0" / f"input_{i}.pb").write_bytes(
            numpy_helper.from_array(a).SerializeToString())
    for i, o in enumerate(outs):
        (d / "test_data_set_0" / f"output_{i}.pb").write_bytes(
            numpy_helper.from_array(o).SerializeToString())
    print(f"{name}: com.microsoft ops {' '.join(ops)}; all ops "
          f"{' '.join(n.op_type for n in model.graph.node)}")
    return outs


def merge(a, b):
    """One model computing both: b's names prefixed with "mha/", the inputs shared."""
    inputs = {i.name for i in b.graph.input}
    b = onnx.compose.add_prefix(b, "mha/", rename_inputs=False)
    g = a.graph
    g.node.extend(b.graph.node)
    g.initializer.extend(b.graph.initializer)
    g.value_info.extend(b.graph.value_info)
    g.output.extend(b.graph.output)
    assert {i.name for i in g.input} == inputs
    return a


def main():
    torch.manual_seed(30)
    rng = np.random.default_rng(30)
    model = Bert().eval()
    ids = rng.integers(0, V, (B, S)).astype(np.int64)
    mask = np.ones((B, S), np.int64)
    mask[1, 5:] = 0
    types = np.zeros((B, S), np.int64)
    types[:, 4:] = 1
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
    with torch.no_grad():
        want = model(*(torch.from_numpy(a) for a in feeds.values())).numpy()
    exported = HERE / "_bert.onnx"
    torch.onnx.export(model, tuple(torch.from_numpy(a) for a in feeds.values()), str(exported),
                      input_names=list(feeds), output_names=["y"], opset_version=17,
                      dynamo=False)
    optimised = []
    for mha in (False, True):
        options = FusionOptions("bert")
        options.use_multi_head_attention = mha
        opt = optimizer.optimize_model(str(exported), model_type="bert", num_heads=N,
                                       hidden_size=D, optimization_options=options, opt_level=0)
        saved = HERE / "_optimised.onnx"  # saving adds the com.microsoft opset import
        opt.save_model_to_file(str(saved))
        optimised.append(version_converter.convert_version(onnx.load(str(saved)), 23))
        saved.unlink()
    m = merge(*optimised)
    onnx.checker.check_model(m)
    outs = write("contrib_bert", m, feeds,
                 ["EmbedLayerNormalization", "Attention", "MultiHeadAttention",
                  "SkipLayerNormalization", "BiasGelu"])
    for o in outs:
        np.testing.assert_allclose(o, want, rtol=1e-4, atol=1e-5)
    exported.unlink()


if __name__ == "__main__":
    main()
