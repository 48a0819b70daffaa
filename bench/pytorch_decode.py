#!/usr/bin/python3
"""The PyTorch peer of bench/decode_bench.cc: GPT-2 small (12 layers, 768 wide, 12 heads, a
vocabulary of 50257, 1024 positions) in plain PyTorch with its own KV cache, as Hugging Face's
GPT2LMHeadModel computes it (Conv1D projections by addmm, gelu tanh, the LM head tied to wte) but
with the cache preallocated (no torch.cat per step), in eval mode under torch.inference_mode(), random
weights. The prefill of a 256-token prompt at 1 and 2 threads, then 64 tokens generated greedily one
step at a time, batch 1 and 8, 1 thread. OpenBLAS is named for the core as in bench/pytorch_peer.py.
Prints one line per case: name, argument, ms.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import pytorch_peer  # noqa: E402,F401  (sets OPENBLAS_CORETYPE before torch loads)
from pytorch_mixed import median_ms  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

VOCABULARY, POSITIONS, D, HEADS, LAYERS = 50257, 1024, 768, 12, 12
PROMPT, GENERATED = 256, 64


def conv1d(x, w, b):
    return torch.addmm(b, x.reshape(-1, x.shape[-1]), w).view(*x.shape[:-1], w.shape[1])


class GPT2(torch.nn.Module):
    def __init__(self):
        super().__init__()
        p = lambda *shape: torch.nn.Parameter(torch.empty(*shape).uniform_(-0.05, 0.05))
        self.wte, self.wpe = p(VOCABULARY, D), p(POSITIONS, D)
        self.layers = [dict(ln_1=torch.nn.LayerNorm(D), c_attn=(p(D, 3 * D), p(3 * D)), c_proj=(p(D, D), p(D)),
                            ln_2=torch.nn.LayerNorm(D), c_fc=(p(D, 4 * D), p(4 * D)), c_proj2=(p(4 * D, D), p(D)))
                       for _ in range(LAYERS)]
        self.ln_f = torch.nn.LayerNorm(D)

    def cache(self, batch):
        shape = (LAYERS, 2, batch, HEADS, POSITIONS, D // HEADS)
        return torch.empty(shape)

    def forward(self, ids, cache, position):
        batch, n = ids.shape
        x = self.wte[ids] + self.wpe[position:position + n]
        heads = lambda t: t.view(batch, n, HEADS, D // HEADS).transpose(1, 2)
        end = position + n
        mask = torch.ones(n, end, dtype=torch.bool).tril(position) if n > 1 else None
        for i, layer in enumerate(self.layers):
            q, k, v = conv1d(layer["ln_1"](x), *layer["c_attn"]).split(D, dim=2)
            cache[i, 0, :, :, position:end], cache[i, 1, :, :, position:end] = heads(k), heads(v)
            scores = heads(q) @ cache[i, 0, :, :, :end].transpose(-1, -2) / (D // HEADS) ** 0.5
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            a = scores.softmax(-1) @ cache[i, 1, :, :, :end]
            x = x + conv1d(a.transpose(1, 2).reshape(batch, n, D), *layer["c_proj"])
            x = x + conv1d(F.gelu(conv1d(layer["ln_2"](x), *layer["c_fc"]), approximate="tanh"), *layer["c_proj2"])
        return F.linear(self.ln_f(x), self.wte)


def decode(model, batch, prompt_length=PROMPT, generated=GENERATED, vocabulary=VOCABULARY, run_prompt=None):
    """ms per step of the `generated` tokens after a prompt (untimed), each the greedy token of the
    last, the median of 3; model(ids, cache, position) gives the logits, model.cache(batch) a cache,
    run_prompt(prompt, cache) the prompt's logits (default: the model's run of it)."""
    prompt = torch.randint(0, vocabulary, (batch, prompt_length))
    runs = []
    for _ in range(3):
        cache = model.cache(batch)
        logits = run_prompt(prompt, cache) if run_prompt else model(prompt, cache, 0)
        start = time.perf_counter()
        for t in range(generated):
            logits = model(logits[:, -1].argmax(-1, keepdim=True), cache, prompt_length + t)
        runs.append((time.perf_counter() - start) / generated * 1e3)
    return sorted(runs)[1]


def main():
    model = GPT2().eval()
    prompt = torch.randint(0, VOCABULARY, (1, PROMPT))
    with torch.inference_mode():
        for threads in (1, 2):
            torch.set_num_threads(threads)
            cache = model.cache(1)
            print("pytorch/gpt2_small/prefill256 threads:%d %.2f ms" % (threads, median_ms(lambda: model(prompt, cache, 0))))
        torch.set_num_threads(1)
        for batch in (1, 8):
            print("pytorch/gpt2_small/decode64_after256 batch:%d %.2f ms/step" % (batch, decode(model, batch)))


if __name__ == "__main__":
    main()
