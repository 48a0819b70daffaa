#!/usr/bin/python3
"""Writes the golden files of tests/data/golden/: PyTorch modules (eval mode, dropout 0), their
inputs and PyTorch's outputs, one .safetensors file per case, in ctformer's names after
load_state_dict (PyTorch's state_dict names; masks in ctformer's polarity, true = attend).

Every parameter is random, not PyTorch's initialisation: biases (which PyTorch starts at zero),
LayerNorm gains and shifts (which start at 1 and 0), and each layer of a stack its own (which
TransformerEncoder copies from one layer), so a weight taken from the wrong name changes the output.

Run with Debian's interpreter, which sees python3-torch (not needed by CI: the files are committed):
    /usr/bin/python3 tests/data/make_golden.py tests/data/golden
Outputs computed in float32 come out a few ulps apart from one machine to another: to add a case, write
into an empty folder and copy only the new case's files, leaving the others as they are.
"""
import copy
import json
import math
import os
import struct
import sys

import torch

torch.manual_seed(2026)
torch.set_grad_enabled(False)


def save(path, tensors, metadata):
    """A .safetensors file of float32 tensors, and int64 or int32 ones (token ids) as they are, written
    by hand (Debian has no safetensors package)."""
    header, data = {"__metadata__": metadata}, b""
    integer = {torch.int64: "I64", torch.int32: "I32"}
    for name, t in tensors.items():
        dtype = integer.get(t.dtype, "F32")
        raw = (t if dtype != "F32" else t.detach().to(torch.float32)).contiguous().numpy().tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + data)


def randomize(module):
    """Every parameter of module drawn anew: weight matrices uniform in ±1/√fan-in, vectors (biases,
    LayerNorm shifts) in ±0.5, LayerNorm gains in [0.5, 1.5] (the weights whose names say "norm" in any
    case: PyTorch's norm1, Hugging Face's LayerNorm)."""
    for name, p in module.named_parameters():
        if p.dim() >= 2:
            bound = p.shape[-1] ** -0.5
            p.uniform_(-bound, bound)
        elif "norm" in name.lower() and name.endswith("weight"):
            p.uniform_(0.5, 1.5)
        else:
            p.uniform_(-0.5, 0.5)
    return module


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
        mha = randomize(torch.nn.MultiheadAttention(d, heads, batch_first=True).eval())
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
    mha = randomize(torch.nn.MultiheadAttention(d, heads, batch_first=True).eval())
    q, kv = torch.randn(batch, 5, d), torch.randn(batch, 9, d)
    y, _ = mha(q, kv, kv, need_weights=False)
    tensors = dict(mha.state_dict())
    tensors.update({"q": q, "kv": kv, "expected": y})
    save(os.path.join(out, "mha_cross.safetensors"), tensors, {"module": "nn.MultiheadAttention"})


def encoder_cases(out):
    d, heads, d_ff, batch, length = 32, 4, 64, 2, 7
    for act in ["relu", "gelu"]:
        for norm_first in [False, True]:
            layer = randomize(torch.nn.TransformerEncoderLayer(d, heads, d_ff, dropout=0.0, activation=act,
                                                               batch_first=True, norm_first=norm_first).eval())
            x = torch.randn(batch, length, d)
            tensors = dict(layer.state_dict())
            tensors.update({"x": x, "expected": layer(x)})
            name = "encoder_layer_%s_%s" % ("pre" if norm_first else "post", act)
            save(os.path.join(out, name + ".safetensors"), tensors, {"module": "nn.TransformerEncoderLayer"})

    for layers in [2, 12]:
        layer = torch.nn.TransformerEncoderLayer(d, heads, d_ff, dropout=0.0, batch_first=True)
        stack = randomize(torch.nn.TransformerEncoder(layer, num_layers=layers, enable_nested_tensor=False).eval())
        x = torch.randn(batch, length, d)
        tensors = dict(stack.state_dict())
        tensors.update({"x": x, "expected": stack(x)})
        name = "encoder_%d_layers.safetensors" % layers
        save(os.path.join(out, name), tensors, {"module": "nn.TransformerEncoder"})

    # BERT's LayerNorm eps (1e-12), where eps matters: the attention's output and the input are small
    # (about 1e-3), so the first LayerNorm sees a variance near 1e-6, and eps 1e-5 would change it.
    layer = randomize(torch.nn.TransformerEncoderLayer(d, heads, d_ff, dropout=0.0, activation="gelu",
                                                       layer_norm_eps=1e-12, batch_first=True).eval())
    layer.self_attn.out_proj.weight.mul_(1e-3)
    layer.self_attn.out_proj.bias.mul_(1e-3)
    x = 1e-3 * torch.randn(batch, length, d)
    tensors = dict(layer.state_dict())
    tensors.update({"x": x, "expected": layer(x)})
    save(os.path.join(out, "encoder_layer_eps_1e-12.safetensors"), tensors,
         {"module": "nn.TransformerEncoderLayer(layer_norm_eps=1e-12)"})


def gqa_case(out):
    """Grouped-query attention, written out with K/V heads repeated (PyTorch 1.13 has no GQA module)."""
    d, heads, groups, batch, length = 32, 4, 2, 2, 7
    d_head = d // heads
    lin = lambda n_out: randomize(torch.nn.Linear(d, n_out))
    wq, wk, wv, wo = lin(heads * d_head), lin(groups * d_head), lin(groups * d_head), lin(d)
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


def mask_cases(out):
    """attn_mask as PyTorch takes it: a float mask, added to the scores ([batch·heads, L, L], one per
    sequence and head), and a boolean one, True = masked ([L, L]); ctformer's additive [B, heads, L, L]
    and attend [L, L] (true = attend)."""
    d, heads, batch, length = 32, 4, 2, 7
    for name, boolean in [("mha_float_mask", False), ("mha_bool_mask", True)]:
        mha = randomize(torch.nn.MultiheadAttention(d, heads, batch_first=True).eval())
        x = torch.randn(batch, length, d)
        if boolean:
            attn_mask = torch.rand(length, length) < 0.3
            attn_mask[:, 0] = False
            ours = {"attend": attend(attn_mask)}
        else:
            attn_mask = torch.randn(batch * heads, length, length)
            attn_mask[:, :, 3] = -1e9
            ours = {"bias": attn_mask.reshape(batch, heads, length, length)}
        y, per_head = mha(x, x, x, attn_mask=attn_mask, need_weights=True, average_attn_weights=False)
        tensors = dict(mha.state_dict())
        tensors.update({"x": x, "expected": y, "expected_weights": per_head, **ours})
        save(os.path.join(out, name + ".safetensors"), tensors, {"module": "nn.MultiheadAttention"})



def lengths_case(out):
    """One 2-layer nn.TransformerEncoder run at lengths 1, 9 and 16 ("x_L", "expected_L"), and on a batch
    of those three lengths padded to 16 with src_key_padding_mask ("x", "expected_mixed"), which its
    fast path runs as a nested tensor and returns with zeros at the padding."""
    d, heads, d_ff, lengths = 32, 4, 64, [1, 9, 16]
    layer = torch.nn.TransformerEncoderLayer(d, heads, d_ff, dropout=0.0, batch_first=True)
    stack = randomize(torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=True).eval())
    x = torch.randn(len(lengths), max(lengths), d)
    pad = torch.arange(max(lengths))[None, :] >= torch.tensor(lengths)[:, None]  # True = padding
    x[pad] = 0.0
    tensors = dict(stack.state_dict())
    with torch.inference_mode():
        tensors.update({"x": x, "expected_mixed": stack(x, src_key_padding_mask=pad)})
        for b, length in enumerate(lengths):
            tensors.update({"x_%d" % length: x[b:b + 1, :length], "expected_%d" % length: stack(x[b:b + 1, :length])})
    save(os.path.join(out, "encoder_lengths.safetensors"), tensors,
         {"module": "nn.TransformerEncoder(enable_nested_tensor=True)"})


def decoder_cases(out):
    """nn.TransformerDecoderLayer, post-LN with a causal tgt_mask and both key-padding masks, and
    pre-LN (gelu) with a boolean tgt_mask and a float memory_mask; a 2-layer nn.TransformerDecoder
    with its final norm; nn.Transformer with 2 + 2 layers. Targets are 5 long, sources 7."""
    d, heads, d_ff, batch, lt, ls = 32, 4, 64, 2, 5, 7
    causal = torch.triu(torch.ones(lt, lt, dtype=torch.bool), 1)  # True = masked

    def layer(act="relu", norm_first=False):
        return torch.nn.TransformerDecoderLayer(d, heads, d_ff, dropout=0.0, activation=act, batch_first=True,
                                                norm_first=norm_first)

    def case(name, module, inputs, ours, masks):
        """module(*inputs, **masks), saved with its inputs and ctformer's masks (`ours`) by name."""
        tensors = dict(module.state_dict(), **inputs, **ours)
        tensors["expected"] = module(*inputs.values(), **masks)
        save(os.path.join(out, name + ".safetensors"), tensors, {"module": type(module).__name__})

    tgt, memory, src = torch.randn(batch, lt, d), torch.randn(batch, ls, d), torch.randn(batch, ls, d)
    tgt_pad, memory_pad = padding(batch, lt), padding(batch, ls)
    case("decoder_layer_post_masks", randomize(layer().eval()), {"tgt": tgt, "memory": memory},
         {"tgt_pad": attend(tgt_pad), "memory_pad": attend(memory_pad)},
         {"tgt_mask": causal, "tgt_key_padding_mask": tgt_pad, "memory_key_padding_mask": memory_pad})

    tgt_mask = torch.rand(lt, lt) < 0.3
    tgt_mask[:, 0] = False
    memory_mask = torch.randn(lt, ls)
    case("decoder_layer_pre_gelu_masks", randomize(layer("gelu", norm_first=True).eval()),
         {"tgt": tgt, "memory": memory}, {"tgt_attend": attend(tgt_mask), "memory_bias": memory_mask},
         {"tgt_mask": tgt_mask, "memory_mask": memory_mask})

    stack = randomize(torch.nn.TransformerDecoder(layer(), 2, norm=torch.nn.LayerNorm(d)).eval())
    case("decoder_2_layers", stack, {"tgt": tgt, "memory": memory}, {}, {"tgt_mask": causal})

    transformer = randomize(torch.nn.Transformer(d, heads, 2, 2, d_ff, dropout=0.0, batch_first=True).eval())
    case("transformer_2_2", transformer, {"src": src, "tgt": tgt}, {"src_pad": attend(memory_pad)},
         {"tgt_mask": causal, "src_key_padding_mask": memory_pad, "memory_key_padding_mask": memory_pad})

class Embeddings(torch.nn.Module):
    """GPT-2's first hidden state, then a LayerNorm: wte(ids) + wpe(0 … L-1), as nn.Embedding modules."""

    def __init__(self, vocabulary, positions, d):
        super().__init__()
        self.wte, self.wpe = torch.nn.Embedding(vocabulary, d), torch.nn.Embedding(positions, d)
        self.ln = torch.nn.LayerNorm(d)

    def forward(self, ids):
        return self.ln(self.wte(ids) + self.wpe(torch.arange(ids.shape[1])))


def embedding_case(out):
    """Embeddings over a vocabulary of 50 and 16 positions, width 24; ids int64 (PyTorch's own) and the
    same as int32, a batch of 3 sequences of 7 that reach both ends of the vocabulary."""
    module = Embeddings(50, 16, 24).eval()
    for p in module.parameters():
        p.uniform_(-1, 1)
    module.ln.weight.uniform_(0.5, 1.5)
    ids = torch.randint(0, 50, (3, 7))
    ids[0, 0], ids[2, 6] = 0, 49
    tensors = dict(module.state_dict(), input_ids=ids, input_ids_i32=ids.to(torch.int32), expected=module(ids))
    save(os.path.join(out, "embedding_positions.safetensors"), tensors, {"module": "wte + wpe, LayerNorm"})


class Conv1D(torch.nn.Module):
    """GPT-2's projection: y = x·W + b with W stored [in, out], transposed from nn.Linear's."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight, self.bias = torch.nn.Parameter(torch.empty(d_in, d_out)), torch.nn.Parameter(torch.empty(d_out))

    def forward(self, x):
        return x @ self.weight + self.bias


class GPT2Block(torch.nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln_1, self.ln_2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.attn = torch.nn.Module()
        self.attn.c_attn, self.attn.c_proj = Conv1D(d, 3 * d), Conv1D(d, d)
        self.mlp = torch.nn.Module()
        self.mlp.c_fc, self.mlp.c_proj = Conv1D(d, 4 * d), Conv1D(4 * d, d)

    def forward(self, x):
        batch, length, d = x.shape
        q, k, v = self.attn.c_attn(self.ln_1(x)).split(d, dim=2)
        heads = lambda t: t.view(batch, length, self.heads, d // self.heads).transpose(1, 2)
        causal = torch.ones(length, length, dtype=torch.bool).tril()
        scores = (heads(q) @ heads(k).transpose(-1, -2)) / (d // self.heads) ** 0.5
        a = scores.masked_fill(~causal, float("-inf")).softmax(-1) @ heads(v)
        x = x + self.attn.c_proj(a.transpose(1, 2).reshape(batch, length, d))
        return x + self.mlp.c_proj(torch.nn.functional.gelu(self.mlp.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT2(torch.nn.Module):
    """GPT-2 (GPT2LMHeadModel) in plain PyTorch, by Hugging Face's state_dict names: transformer.wte,
    .wpe, .h.{i}.{ln_1, attn.c_attn, attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj}, .ln_f; the LM head is
    wte, tied."""

    def __init__(self, vocabulary, positions, d, heads, layers):
        super().__init__()
        self.transformer = torch.nn.Module()
        self.transformer.wte = torch.nn.Embedding(vocabulary, d)
        self.transformer.wpe = torch.nn.Embedding(positions, d)
        self.transformer.h = torch.nn.ModuleList(GPT2Block(d, heads) for _ in range(layers))
        self.transformer.ln_f = torch.nn.LayerNorm(d)
        self.head = None  # the LM head's weight where it is not wte's (a plain tensor, not in the state_dict)
        self.head_input = lambda x: x  # what the head's GEMM makes of its input (bf16_precision)

    def forward(self, ids):
        t = self.transformer
        x = t.wte(ids) + t.wpe(torch.arange(ids.shape[1]))
        for block in t.h:
            x = block(x)
        return self.head_input(t.ln_f(x)) @ (t.wte.weight if self.head is None else self.head).T


def bf16_precision(model, gemms, head):
    """A copy of a model whose GEMMs compute as ctformer's precision::bf16 does: each module of the
    types `gemms` (and the LM head) has its weight and its input rounded to bf16, its products and
    sums kept in the model's precision. The embeddings, biases and norms are left alone."""
    rounded = copy.deepcopy(model)
    for module in rounded.modules():
        if isinstance(module, gemms):
            module.weight.copy_(bf16(module.weight))
            module.register_forward_pre_hook(lambda _, inputs: tuple(bf16(x) for x in inputs))
    rounded.head = bf16(head)
    rounded.head_input = bf16
    return rounded


def bf16(t):
    """t rounded to the nearest bfloat16 (ties to even) from float32, as ctformer rounds its fp32
    values, in its own dtype again."""
    return t.float().to(torch.bfloat16).to(t.dtype)


def greedy(model, ids, steps):
    """Greedy generation of `steps` tokens after ids, each by the full causal forward of the prefix:
    the tokens chosen, and each step's last-position logits ([steps, vocabulary])."""
    tokens, logits = ids, []
    for _ in range(steps):
        logits.append(model(tokens)[0, -1])
        tokens = torch.cat([tokens, logits[-1].argmax().view(1, 1)], dim=1)
    return tokens[0, ids.shape[1]:], torch.stack(logits)


def gpt2_case(out):
    """A 2-layer GPT-2, width 32, 4 heads, a vocabulary of 61 and 24 positions, random weights
    (Conv1D's uniform in ±1/√in); a prompt of 5 ids, greedy generation of 8 more by the full causal
    forward of each prefix, the logits of each step's last position ([8, 61]) and the prompt's
    logits ([1, 5, 61]); then the same, bf16_expected*, in bf16 precision (bf16_precision). The
    logits are computed in double precision from the float32 weights: the answer fp32 arithmetic
    approximates, the same on any machine (PyTorch's own fp32 logits are 1.6e-6 to 3.3e-6 from it,
    depending on the machine), so that a test's tolerance can be its own fp32 rounding alone."""
    model = GPT2(61, 24, 32, 4, 2).eval()
    for name, p in model.named_parameters():
        if p.dim() == 2:
            bound = p.shape[0] ** -0.5 if "c_" in name else 1.0
            p.uniform_(-bound, bound)
        elif "ln_" in name and name.endswith("weight"):
            p.uniform_(0.5, 1.5)
        else:
            p.uniform_(-0.5, 0.5)
    model.double()
    ids = torch.randint(0, 61, (1, 5))
    tokens, steps = greedy(model, ids, 8)
    tensors = dict(model.state_dict(), prompt=ids, expected_tokens=tokens, expected_step_logits=steps, expected=model(ids))
    rounded = bf16_precision(model, Conv1D, model.transformer.wte.weight)
    tokens, steps = greedy(rounded, ids, 8)
    tensors.update(bf16_expected_tokens=tokens, bf16_expected_step_logits=steps, bf16_expected=rounded(ids))
    save(os.path.join(out, "gpt2_2_layers.safetensors"), tensors, {"module": "GPT-2 (GPT2LMHeadModel's names)"})


def scaled(inverse, scaling):
    """The inverse frequencies under rope_scaling (None: as they are), as Hugging Face's
    _compute_llama3_parameters computes them in float32: wavelengths 2π/f shorter than
    original / high_freq_factor kept, longer than original / low_freq_factor divided by factor, and
    those between a smooth mix of the two."""
    if scaling is None:
        return inverse
    factor = scaling["factor"]
    low, high, old = scaling["low_freq_factor"], scaling["high_freq_factor"], scaling["original_max_position_embeddings"]
    wavelen = 2 * math.pi / inverse
    llama = torch.where(wavelen > old / low, inverse / factor, inverse)
    smooth_factor = (old / wavelen - low) / (high - low)
    smoothed = (1 - smooth_factor) * llama / factor + smooth_factor * llama
    medium = ~(wavelen < old / high) * ~(wavelen > old / low)
    return torch.where(medium, smoothed, llama)


def inverse_frequencies(dims, theta, scaling=None):
    """LlamaRotaryEmbedding's inv_freq: 1/θ^(2i/dims) in float32, then scaled."""
    return scaled(1.0 / (theta ** (torch.arange(0, dims, 2, dtype=torch.int64).float() / dims)), scaling)


def rotary_angles(length, dims, theta, scaling=None):
    """LlamaRotaryEmbedding's angles [length, dims/2]: the inverse frequencies and their product with the
    position rounded to float32, as Hugging Face computes them; their cosines and sines are then taken in
    the model's precision."""
    return (torch.arange(length).float()[:, None] * inverse_frequencies(dims, theta, scaling)[None, :]).double()


def rotate(x, dims, theta, interleaved, scaling=None):
    """x [B, heads, L, d_head] with its first `dims` dimensions turned: pair i is (i, i + dims/2), Hugging
    Face's rotate_half, or (2i, 2i + 1), GPT-J's rotate_every_two; the rest pass (partial rotary)."""
    turned, rest = x[..., :dims], x[..., dims:]
    angles = rotary_angles(x.shape[-2], dims, theta, scaling).to(x.dtype)
    cos, sin = angles.cos(), angles.sin()
    if interleaved:
        a, b = turned[..., 0::2], turned[..., 1::2]
        turned = torch.stack((a * cos - b * sin, b * cos + a * sin), dim=-1).flatten(-2)
    else:
        a, b = turned[..., : dims // 2], turned[..., dims // 2:]
        turned = torch.cat((a * cos - b * sin, b * cos + a * sin), dim=-1)
    return torch.cat((turned, rest), dim=-1)


class RMSNorm(torch.nn.Module):
    """LlamaRMSNorm: x / √(mean(x²) + eps) · weight."""

    def __init__(self, d, eps):
        super().__init__()
        self.weight, self.eps = torch.nn.Parameter(torch.empty(d)), eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class LlamaLayer(torch.nn.Module):
    """LlamaDecoderLayer by its names: input_layernorm, self_attn.{q,k,v,o}_proj, post_attention_layernorm,
    mlp.{gate,up,down}_proj; grouped-query attention, rotary q and k, SiLU-gated MLP; biases on q, k and
    v only with qkv_bias (Qwen2's Qwen2Attention); each query over its last sliding_window keys, its own
    included, where c has one (Mistral's, as Hugging Face's sliding_window_overlay: kv > q - window)."""

    def __init__(self, c):
        super().__init__()
        d, dh = c["d"], c["d"] // c["heads"]
        self.c = c
        self.input_layernorm, self.post_attention_layernorm = RMSNorm(d, c["eps"]), RMSNorm(d, c["eps"])
        linear = lambda i, o, bias=False: torch.nn.Linear(i, o, bias=bias)
        self.self_attn = children(q_proj=linear(d, c["heads"] * dh, c["qkv_bias"]),
                                  k_proj=linear(d, c["kv_heads"] * dh, c["qkv_bias"]),
                                  v_proj=linear(d, c["kv_heads"] * dh, c["qkv_bias"]), o_proj=linear(d, d))
        self.mlp = children(gate_proj=linear(d, c["d_ff"]), up_proj=linear(d, c["d_ff"]), down_proj=linear(c["d_ff"], d))

    def forward(self, x):
        c, a = self.c, self.self_attn
        batch, length, d = x.shape
        dh, dims = d // c["heads"], c["rotary_dims"] or d // c["heads"]
        heads = lambda t, h: t.view(batch, length, h, dh).transpose(1, 2).repeat_interleave(c["heads"] // h, dim=1)
        turn = lambda t: rotate(t, dims, c["theta"], c["interleaved"], c["rope_scaling"])
        n = self.input_layernorm(x)
        q = turn(heads(a.q_proj(n), c["heads"]))
        k, v = turn(heads(a.k_proj(n), c["kv_heads"])), heads(a.v_proj(n), c["kv_heads"])
        causal = torch.ones(length, length, dtype=torch.bool).tril()
        if c.get("sliding_window"):
            causal &= torch.ones(length, length, dtype=torch.bool).triu(1 - c["sliding_window"])
        scores = (q @ k.transpose(-1, -2)) / dh ** 0.5
        o = scores.masked_fill(~causal, float("-inf")).softmax(-1) @ v
        x = x + a.o_proj(o.transpose(1, 2).reshape(batch, length, d))
        m = self.post_attention_layernorm(x)
        return x + self.mlp.down_proj(torch.nn.functional.silu(self.mlp.gate_proj(m)) * self.mlp.up_proj(m))


class Llama(torch.nn.Module):
    """LlamaForCausalLM in plain PyTorch, by Hugging Face's state_dict names: model.embed_tokens,
    model.layers.{i}.*, model.norm, and lm_head unless tied to embed_tokens (c["tied"])."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.model = children(embed_tokens=torch.nn.Embedding(c["vocabulary"], c["d"]),
                              layers=torch.nn.ModuleList(LlamaLayer(c) for _ in range(c["layers"])),
                              norm=RMSNorm(c["d"], c["eps"]))
        if not c["tied"]:
            self.lm_head = torch.nn.Linear(c["d"], c["vocabulary"], bias=False)
        self.head = None  # the LM head's weight where it is another (bf16-rounded) copy, not in the state_dict
        self.head_input = lambda x: x  # what the head's GEMM makes of its input (bf16_precision)

    def forward(self, ids):
        x = self.model.embed_tokens(ids)
        for layer in self.model.layers:
            x = layer(x)
        head = self.head if self.head is not None else (self.model.embed_tokens.weight if self.c["tied"] else self.lm_head.weight)
        return self.head_input(self.model.norm(x)) @ head.T


def llama_cases(out):
    """Three 2-layer LLaMAs, width 32, 4 heads of 8, d_ff 48, a vocabulary of 61, random weights (randomize:
    RMSNorm gains in [0.5, 1.5], q/k/v biases in ±0.5; its own seed): llama_2_layers, Llama 3.2's form
    (2 KV heads, rotate_half, θ 500000, its llama3 rope_scaling with the original positions 256, so that
    in 8 dimensions one pair keeps its frequency, one is mixed and two are divided by 32; lm_head of its
    own), and qwen2_2_layers, a Qwen2 with what LLaMA lacks (q/k/v biases, the head tied to the
    embeddings) and the other rotary forms (one KV head, GPT-J's interleaved pairs on 6 of 8 dimensions,
    θ 1e6); and mistral_2_layers, a Mistral v0.1 whose sliding window is 3 keys (so that the prompt's
    queries and the greedy steps past position 2 each see only their last 3). Each as gpt2_case: a prompt of 5 ids, 8 greedy steps by the full forward, the logits computed
    in double precision from the float32 weights (the rotary angles rounded to float32 as Hugging Face's
    are), then the same in bf16 precision (bf16_expected*): q/k/v/o, gate/up/down and the head with
    their weights and inputs rounded to bf16, not the embeddings. llama_2_layers also holds its scaled inverse frequencies
    (inverse_frequencies) and Llama 3.2 1B's (llama_3_2_inverse_frequencies), and prints how far its
    logits are from the same model's without scaling."""
    base = dict(vocabulary=61, d=32, heads=4, d_ff=48, layers=2, eps=1e-5)
    llama3 = dict(rope_type="llama3", factor=32.0, low_freq_factor=1.0, high_freq_factor=4.0,
                  original_max_position_embeddings=256)
    cases = {"llama_2_layers": dict(base, kv_heads=2, theta=500000.0, rope_scaling=llama3, rotary_dims=0,
                                    interleaved=False, tied=False, qkv_bias=False),
             "qwen2_2_layers": dict(base, kv_heads=1, theta=1e6, rope_scaling=None, rotary_dims=6, interleaved=True,
                                    tied=True, qkv_bias=True, eps=1e-6),
             "mistral_2_layers": dict(base, kv_heads=2, theta=10000.0, rope_scaling=None, rotary_dims=0, interleaved=False,
                                      tied=False, qkv_bias=False, sliding_window=3)}
    torch.manual_seed(10)  # tokens that change, chosen by a margin of 0.001 or more
    for name, c in cases.items():
        model = randomize(Llama(c).eval()).double()
        ids = torch.randint(0, c["vocabulary"], (1, 5))
        tokens, steps = greedy(model, ids, 8)
        tensors = dict(model.state_dict(), prompt=ids, expected_tokens=tokens, expected_step_logits=steps,
                       expected=model(ids))
        if c.get("sliding_window"):
            unbanded = copy.deepcopy(model)
            for layer in unbanded.model.layers:
                layer.c = dict(c, sliding_window=None)
            print(name, "without its sliding window: logits differ by", float((unbanded(ids) - tensors["expected"]).abs().max()))
        if c["rope_scaling"]:
            tensors["inverse_frequencies"] = inverse_frequencies(c["d"] // c["heads"], c["theta"], c["rope_scaling"])
            # Llama 3.2 1B's own: heads of 64, θ 500000, the original 8192 positions
            tensors["llama_3_2_inverse_frequencies"] = inverse_frequencies(
                64, 500000.0, dict(c["rope_scaling"], original_max_position_embeddings=8192))
            unscaled = copy.deepcopy(model)
            for layer in unscaled.model.layers:
                layer.c = dict(c, rope_scaling=None)
            print(name, "without rope_scaling: logits differ by", float((unscaled(ids) - tensors["expected"]).abs().max()))
        top2 = steps.topk(2, dim=-1).values  # how far each greedy choice is from the runner-up
        print(name, "tokens", tokens.tolist(), "least margin", float((top2[:, 0] - top2[:, 1]).min()))
        rounded = bf16_precision(model, torch.nn.Linear, model.model.embed_tokens.weight if c["tied"] else model.lm_head.weight)
        tokens, steps = greedy(rounded, ids, 8)
        tensors.update(bf16_expected_tokens=tokens, bf16_expected_step_logits=steps, bf16_expected=rounded(ids))
        save(os.path.join(out, name + ".safetensors"), tensors, {"module": "LlamaForCausalLM's names, " + json.dumps(c)})


def children(**modules):
    """A plain nn.Module holding modules by name: Hugging Face's nesting, which its state_dict names follow."""
    parent = torch.nn.Module()
    for name, module in modules.items():
        parent.add_module(name, module)
    return parent


ACTIVATIONS = {"gelu": torch.nn.functional.gelu,  # exact, by erf
               "gelu_new": lambda x: torch.nn.functional.gelu(x, approximate="tanh")}


class BertLayer(torch.nn.Module):
    """Hugging Face's BertLayer, post-LN: attention.self.{query, key, value}, attention.output.{dense,
    LayerNorm}, intermediate.dense, output.{dense, LayerNorm}."""

    def __init__(self, c):
        super().__init__()
        d, d_ff, linear = c["hidden_size"], c["intermediate_size"], torch.nn.Linear
        norm = lambda: torch.nn.LayerNorm(d, eps=c["layer_norm_eps"])
        self.heads, self.act = c["num_attention_heads"], ACTIVATIONS[c["hidden_act"]]
        self.attention = children(self=children(query=linear(d, d), key=linear(d, d), value=linear(d, d)),
                                  output=children(dense=linear(d, d), LayerNorm=norm()))
        self.intermediate = children(dense=linear(d, d_ff))
        self.output = children(dense=linear(d_ff, d), LayerNorm=norm())

    def forward(self, x, bias):
        """x [B, L, D]; bias [B, 1, 1, L], the extended attention mask, added to every head's scores."""
        (batch, length, d), a = x.shape, self.attention
        heads = lambda t: t.view(batch, length, self.heads, -1).transpose(1, 2)
        q, k, v = heads(a.self.query(x)), heads(a.self.key(x)), heads(a.self.value(x))
        p = (q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5 + bias).softmax(-1)
        h = a.output.LayerNorm(x + a.output.dense((p @ v).transpose(1, 2).reshape(batch, length, d)))
        return self.output.LayerNorm(h + self.output.dense(self.act(self.intermediate.dense(h))))


class BertModel(torch.nn.Module):
    """Hugging Face's BertModel by its names: embeddings.{word_embeddings, position_embeddings,
    token_type_embeddings, LayerNorm}, encoder.layer.{i}, pooler.dense. Where config's model_type is
    "roberta", RobertaModel: the same but for the position ids, which count the tokens that are not
    pad_token_id from pad_token_id + 1 (create_position_ids_from_input_ids), the padding's pad_token_id."""

    def __init__(self, c):
        super().__init__()
        d, embedding = c["hidden_size"], torch.nn.Embedding
        self.roberta_pad = c["pad_token_id"] if c["model_type"] == "roberta" else None
        self.embeddings = children(word_embeddings=embedding(c["vocab_size"], d),
                                   position_embeddings=embedding(c["max_position_embeddings"], d),
                                   token_type_embeddings=embedding(c["type_vocab_size"], d),
                                   LayerNorm=torch.nn.LayerNorm(d, eps=c["layer_norm_eps"]))
        self.encoder = children(layer=torch.nn.ModuleList(BertLayer(c) for _ in range(c["num_hidden_layers"])))
        self.pooler = children(dense=torch.nn.Linear(d, d))

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        """last_hidden_state [B, L, D], every row (the padding's too), and pooler_output [B, D], tanh of
        pooler.dense of the first token's; attention_mask 1 = attend; token_type_ids absent are zeros."""
        ids, e = input_ids.long(), self.embeddings
        if self.roberta_pad is None:
            positions = torch.arange(ids.shape[1]).expand_as(ids)
        else:
            real = (ids != self.roberta_pad).long()
            positions = real.cumsum(1) * real + self.roberta_pad
        types = torch.zeros_like(ids) if token_type_ids is None else token_type_ids.long()
        x = e.word_embeddings(ids) + e.token_type_embeddings(types) + e.position_embeddings(positions)
        x = e.LayerNorm(x)
        bias = (1.0 - attention_mask.to(x.dtype))[:, None, None, :] * torch.finfo(torch.float32).min
        for layer in self.encoder.layer:
            x = layer(x, bias)
        return x, torch.tanh(self.pooler.dense(x[:, 0]))


class BertForSequenceClassification(torch.nn.Module):
    """Hugging Face's BertForSequenceClassification: bert.*, then classifier on pooler_output."""

    def __init__(self, c):
        super().__init__()
        self.bert = BertModel(c)
        self.classifier = torch.nn.Linear(c["hidden_size"], len(c["id2label"]))

    def forward(self, **inputs):
        return self.classifier(self.bert(**inputs)[1])


def sentence_embedding(h, mask):
    """sentence-transformers' mean pooling, over the attended tokens, then L2-normalised."""
    m = mask.to(h.dtype)[:, :, None]
    return torch.nn.functional.normalize((m * h).sum(1) / m.sum(1).clamp(min=1e-9), dim=1)


def bert_config(model_type, architecture, layers=2, act="gelu", positions=24, types=2, pad=0, **extra):
    """Hugging Face's config.json of a small BERT or RoBERTa: vocabulary 99, width 64, 4 heads, d_ff 96."""
    return dict(architectures=[architecture], attention_probs_dropout_prob=0.1, hidden_act=act,
                hidden_dropout_prob=0.1, hidden_size=64, initializer_range=0.02, intermediate_size=96,
                layer_norm_eps=1e-12, max_position_embeddings=positions, model_type=model_type,
                num_attention_heads=4, num_hidden_layers=layers, pad_token_id=pad,
                position_embedding_type="absolute", torch_dtype="float32", type_vocab_size=types,
                vocab_size=99, **extra)


def bert_batch(c, lengths=(9, 16, 5)):
    """3 sequences padded right to 16: input_ids (int32), reaching both ends of the vocabulary, with
    pad_token_id at the padding (and, for RoBERTa, nowhere else: its positions count the other ids),
    token_type_ids (1 from half each sequence's length to its end) and attention_mask (float, 1 = attend)."""
    mask = (torch.arange(max(lengths))[None, :] < torch.tensor(lengths)[:, None]).float()
    ids = torch.randint(0, c["vocab_size"], mask.shape)
    if c["model_type"] == "roberta":
        ids[ids == c["pad_token_id"]] = 2
    ids[0, 0], ids[2, 4] = 0, c["vocab_size"] - 1
    ids[mask == 0] = c["pad_token_id"]
    types = (torch.arange(max(lengths))[None, :] >= torch.tensor(lengths)[:, None] // 2) * mask
    return dict(input_ids=ids.to(torch.int32), token_type_ids=types.to(torch.int32), attention_mask=mask)


def bert_cases(out):
    """BERT, a BERT classifier and RoBERTa, by Hugging Face's names and computation, as bert_config
    says, each parameter random: bert_2_layers (BertModel: last_hidden_state, pooler_output and the
    sentence_embedding, then the first two with token_type_ids absent), bert_classifier (1 layer,
    gelu_new, 3 labels: logits) and roberta_2_layers (RobertaModel under "roberta.": positions from 2,
    pad id 1, one token type). Computed in double precision, as gpt2_case, the answer on any machine.
    Each file's metadata holds its config.json, written also to tests/data/hf/{bert_tiny,
    bert_classifier_tiny, roberta_tiny}/."""
    labels = {str(i): "LABEL_%d" % i for i in range(3)}
    configs = {"bert_tiny": bert_config("bert", "BertModel"),
               "bert_classifier_tiny": bert_config("bert", "BertForSequenceClassification", layers=1,
                                                   act="gelu_new", id2label=labels,
                                                   label2id={v: int(k) for k, v in labels.items()}),
               "roberta_tiny": bert_config("roberta", "RobertaModel", positions=20, types=1, pad=1,
                                           bos_token_id=0, eos_token_id=2)}
    for name, c in configs.items():
        folder = os.path.join(os.path.dirname(__file__), "hf", name)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "config.json"), "w") as f:
            f.write(json.dumps(c, indent=2, sort_keys=True) + "\n")

    def case(name, c, model, outputs):
        """model randomized, in double; outputs(model, inputs) its outputs by name, saved with its inputs."""
        model = randomize(model.eval()).double()
        inputs = bert_batch(c)
        if c["model_type"] == "roberta":
            del inputs["token_type_ids"]
        tensors = dict(model.state_dict(), **inputs, **outputs(model, inputs))
        save(os.path.join(out, name + ".safetensors"), tensors,
             {"module": c["architectures"][0], "config": json.dumps(c, sort_keys=True)})

    def encoder_outputs(bert, inputs):
        """A BertModel's outputs, and with token_type_ids (where there are) left out, its first two again."""
        h, pooled = bert(**inputs)
        outputs = {"last_hidden_state": h, "pooler_output": pooled,
                   "sentence_embedding": sentence_embedding(h, inputs["attention_mask"])}
        if "token_type_ids" in inputs:
            h, pooled = bert(inputs["input_ids"], inputs["attention_mask"])
            outputs.update(last_hidden_state_no_types=h, pooler_output_no_types=pooled)
        return outputs

    c = configs["bert_tiny"]
    case("bert_2_layers", c, BertModel(c), encoder_outputs)
    c = configs["bert_classifier_tiny"]
    case("bert_classifier", c, BertForSequenceClassification(c), lambda m, i: {"logits": m(**i)})
    c = configs["roberta_tiny"]
    case("roberta_2_layers", c, children(roberta=BertModel(c)), lambda m, i: encoder_outputs(m.roberta, i))


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "golden")
    os.makedirs(out, exist_ok=True)
    mha_cases(out)
    encoder_cases(out)
    gqa_case(out)
    mask_cases(out)
    lengths_case(out)
    decoder_cases(out)
    embedding_case(out)
    gpt2_case(out)
    llama_cases(out)
    bert_cases(out)
    print("torch", torch.__version__, "->", out)
