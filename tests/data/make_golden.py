#!/usr/bin/python3
"""Writes the golden files of tests/golden/: PyTorch modules (eval mode, dropout 0) with random
weights, their inputs and PyTorch's outputs, one .safetensors file per case, in ctformer's names
after load_state_dict (PyTorch's state_dict names; masks in ctformer's polarity, true = attend).

Run with Debian's interpreter, which sees python3-torch (not needed by CI: the files are committed):
    /usr/bin/python3 tests/data/make_golden.py tests/data/golden
"""
import json
import os
import struct
import sys

import torch

torch.manual_seed(2026)
torch.set_grad_enabled(False)


def save(path, tensors, metadata):
    """A .safetensors file of float32 tensors, written by hand (Debian has no safetensors package)."""
    header, data = {"__metadata__": metadata}, b""
    for name, t in tensors.items():
        raw = t.detach().to(torch.float32).contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def attend(mask_true_means_masked):
    """PyTorch's masks say True = masked; ctformer's boolean masks say true = attend."""
    return (~mask_true_means_masked).to(torch.float32)


def padding(batch, length):
    """A key-padding mask (True = pad) that leaves the first key of every sequence attended."""
    pad = torch.rand(batch, length) < 0.3
    pad[:, 0] = False
    return pad


def mha_cases(out):
    d, heads, batch, length = 32, 4, 2, 7
    for name, causal, padded in [("mha_plain", False, False), ("mha_causal", True, False),
                                 ("mha_causal_padding", True, True)]:
        mha = torch.nn.MultiheadAttention(d, heads, batch_first=True).eval()
        x = torch.randn(batch, length, d)
        attn_mask = torch.triu(torch.ones(length, length, dtype=torch.bool), 1) if causal else None
        pad = padding(batch, length) if padded else None
        y, per_head = mha(x, x, x, attn_mask=attn_mask, key_padding_mask=pad, need_weights=True,
                          average_attn_weights=False)
        _, averaged = mha(x, x, x, attn_mask=attn_mask, key_padding_mask=pad, need_weights=True)
        tensors = dict(mha.state_dict())
        tensors.update({"x": x, "expected": y, "expected_weights": per_head, "expected_average": averaged})
        if padded:
            tensors["pad"] = attend(pad)
        save(os.path.join(out, name + ".safetensors"), tensors, {"module": "nn.MultiheadAttention"})

    # cross-attention: 5 queries, 9 keys and values
    mha = torch.nn.MultiheadAttention(d, heads, batch_first=True).eval()
    q, kv = torch.randn(batch, 5, d), torch.randn(batch, 9, d)
    y, _ = mha(q, kv, kv, need_weights=False)
    tensors = dict(mha.state_dict())
    tensors.update({"q": q, "kv": kv, "expected": y})
    save(os.path.join(out, "mha_cross.safetensors"), tensors, {"module": "nn.MultiheadAttention"})


def encoder_cases(out):
    d, heads, d_ff, batch, length = 32, 4, 64, 2, 7
    for act in ["relu", "gelu"]:
        for norm_first in [False, True]:
            layer = torch.nn.TransformerEncoderLayer(d, heads, d_ff, dropout=0.0, activation=act, batch_first=True,
                                                     norm_first=norm_first).eval()
            x = torch.randn(batch, length, d)
            tensors = dict(layer.state_dict())
            tensors.update({"x": x, "expected": layer(x)})
            name = "encoder_layer_%s_%s" % ("pre" if norm_first else "post", act)
            save(os.path.join(out, name + ".safetensors"), tensors, {"module": "nn.TransformerEncoderLayer"})

    layer = torch.nn.TransformerEncoderLayer(d, heads, d_ff, dropout=0.0, batch_first=True)
    stack = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False).eval()
    x = torch.randn(batch, length, d)
    tensors = dict(stack.state_dict())
    tensors.update({"x": x, "expected": stack(x)})
    save(os.path.join(out, "encoder_2_layers.safetensors"), tensors, {"module": "nn.TransformerEncoder"})


def gqa_case(out):
    """Grouped-query attention, written out with K/V heads repeated (PyTorch 1.13 has no GQA module)."""
    d, heads, groups, batch, length = 32, 4, 2, 2, 7
    d_head = d // heads
    lin = lambda n_out: torch.nn.Linear(d, n_out)
    wq, wk, wv, wo = lin(heads * d_head), lin(groups * d_head), lin(groups * d_head), torch.nn.Linear(d, d)
    x = torch.randn(batch, length, d)
    split = lambda t, h: t.view(batch, length, h, d_head).transpose(1, 2)
    q, k, v = split(wq(x), heads), split(wk(x), groups), split(wv(x), groups)
    k, v = (t.repeat_interleave(heads // groups, dim=1) for t in (k, v))
    p = torch.softmax(q @ k.transpose(-1, -2) / d_head ** 0.5, dim=-1)
    y = wo((p @ v).transpose(1, 2).reshape(batch, length, d))
    tensors = {"q_proj_weight": wq.weight, "q_proj_bias": wq.bias, "k_proj_weight": wk.weight,
               "k_proj_bias": wk.bias, "v_proj_weight": wv.weight, "v_proj_bias": wv.bias,
               "out_proj.weight": wo.weight, "out_proj.bias": wo.bias, "x": x, "expected": y}
    save(os.path.join(out, "gqa.safetensors"), tensors, {"module": "GQA by repeat_interleave"})


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "golden")
    os.makedirs(out, exist_ok=True)
    mha_cases(out)
    encoder_cases(out)
    gqa_case(out)
    print("torch", torch.__version__, "->", out)
