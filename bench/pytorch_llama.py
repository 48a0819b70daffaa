#!/usr/bin/python3
"""The PyTorch peer of bench/llama_bench.cc: TinyLlama-1.1B (22 layers, 2048 wide, 32 heads, 4 KV
heads, d_ff 5632, a vocabulary of 32000) in plain PyTorch with its own KV cache, as Hugging Face's
LlamaForCausalLM computes it (RMSNorm, rotate_half rotary positions, grouped-query attention by
repeating the KV heads, SiLU-gated MLP, an lm_head of its own) but with the cache preallocated (no
torch.cat per step), in eval mode under torch.inference_mode(), random weights. The prefill of a
512-token prompt at 1 and 2 threads, then 8 tokens generated greedily one step at a time after a
128-token prompt, batch 1 and 8, 1 thread, with the model in fp32 and in bf16 (its weights,
activations and cache; PyTorch's CPU bf16). The prompt's keys and values are random, its last token
alone run (untimed; a step reads the cache the same), which keeps the run short. OpenBLAS is named for the core as in bench/pytorch_peer.py. Prints one line per case: name,
argument, ms.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import pytorch_peer  # noqa: E402,F401  (sets OPENBLAS_CORETYPE before torch loads)
import pytorch_decode  # noqa: E402
from pytorch_mixed import median_ms  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

VOCABULARY, D, HEADS, KV_HEADS, F_WIDTH, LAYERS, THETA, EPS = 32000, 2048, 32, 4, 5632, 22, 10000.0, 1e-5
DH, POSITIONS = D // HEADS, 2048
PREFILL, PROMPT, GENERATED = 512, 128, 8


def rms_norm(x, w):
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + EPS).to(x.dtype) * w


def rotate(x, cos, sin):
    a, b = x[..., : DH // 2], x[..., DH // 2:]
    return x * cos + torch.cat((-b, a), dim=-1) * sin


class Llama(torch.nn.Module):
    def __init__(self):
        super().__init__()
        p = lambda *shape: torch.nn.Parameter(torch.empty(*shape).uniform_(-shape[-1] ** -0.5, shape[-1] ** -0.5))
        ones = lambda: torch.nn.Parameter(torch.ones(D))
        self.embed, self.norm, self.head = p(VOCABULARY, D), ones(), p(VOCABULARY, D)
        self.layers = [dict(n1=ones(), q=p(D, D), k=p(KV_HEADS * DH, D), v=p(KV_HEADS * DH, D), o=p(D, D), n2=ones(),
                            gate=p(F_WIDTH, D), up=p(F_WIDTH, D), down=p(D, F_WIDTH)) for _ in range(LAYERS)]
        inverse = 1.0 / (THETA ** (torch.arange(0, DH, 2).float() / DH))
        angles = torch.arange(POSITIONS).float()[:, None] * inverse[None, :]
        self.cos, self.sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()

    def to_bf16(self):
        for layer in self.layers:
            for name, w in layer.items():
                layer[name] = w.to(torch.bfloat16)
        for name in ("embed", "norm", "head"):
            setattr(self, name, torch.nn.Parameter(getattr(self, name).to(torch.bfloat16)))
        self.cos, self.sin = self.cos.to(torch.bfloat16), self.sin.to(torch.bfloat16)
        return self

    def cache(self, batch):
        return torch.empty((LAYERS, 2, batch, KV_HEADS, POSITIONS, DH), dtype=self.embed.dtype)

    def forward(self, ids, cache, position):
        batch, n = ids.shape
        end = position + n
        x = self.embed[ids]
        cos, sin = self.cos[position:end], self.sin[position:end]
        heads = lambda t, h: t.view(batch, n, h, DH).transpose(1, 2)
        mask = torch.ones(n, end, dtype=torch.bool).tril(position) if n > 1 else None
        for i, l in enumerate(self.layers):
            h = rms_norm(x, l["n1"])
            q = rotate(heads(F.linear(h, l["q"]), HEADS), cos, sin)
            cache[i, 0, :, :, position:end] = rotate(heads(F.linear(h, l["k"]), KV_HEADS), cos, sin)
            cache[i, 1, :, :, position:end] = heads(F.linear(h, l["v"]), KV_HEADS)
            k = cache[i, 0, :, :, :end].repeat_interleave(HEADS // KV_HEADS, dim=1)
            v = cache[i, 1, :, :, :end].repeat_interleave(HEADS // KV_HEADS, dim=1)
            scores = q @ k.transpose(-1, -2) / DH ** 0.5
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            a = scores.softmax(-1) @ v
            x = x + F.linear(a.transpose(1, 2).reshape(batch, n, D), l["o"])
            m = rms_norm(x, l["n2"])
            x = x + F.linear(F.silu(F.linear(m, l["gate"])) * F.linear(m, l["up"]), l["down"])
        return F.linear(rms_norm(x, self.norm), self.head)


def main():
    model = Llama().eval()
    prompt = torch.randint(0, VOCABULARY, (1, PREFILL))

    def run_prompt(prompt, cache):  # the prompt's keys and values random, its last token run
        cache[:, :, :, :, : PROMPT - 1].uniform_(-1, 1)
        return model(prompt[:, -1:], cache, PROMPT - 1)

    per_step = lambda batch: pytorch_decode.decode(model, batch, PROMPT, GENERATED, VOCABULARY, run_prompt)  # noqa: E731
    with torch.inference_mode():
        for name in ("tinyllama", "tinyllama_bf16"):
            if name.endswith("_bf16"):
                model.to_bf16()
            for threads in (1, 2):
                torch.set_num_threads(threads)
                cache = model.cache(1)
                print("pytorch/%s/prefill512 threads:%d %.1f ms" % (name, threads, median_ms(lambda: model(prompt, cache, 0))),
                      flush=True)
            torch.set_num_threads(1)
            for batch in (1, 8):
                print("pytorch/%s/decode8_after128 batch:%d %.1f ms/step" % (name, batch, per_step(batch)), flush=True)

if __name__ == "__main__":
    main()
