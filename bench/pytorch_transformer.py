#!/usr/bin/python3
"""The PyTorch peer of bench/transformer_bench.cc: nn.Transformer(512, 8, 6, 6, 2048), batch_first,
eval mode under torch.inference_mode(), B = 8, source and target 128 long, tgt_mask the causal
mask (nn.Transformer.generate_square_subsequent_mask). OpenBLAS is named for the core as in
bench/pytorch_peer.py. Prints one line per thread count: name, threads, ms.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import pytorch_peer  # noqa: E402,F401  (sets OPENBLAS_CORETYPE before torch loads)
from pytorch_mixed import median_ms  # noqa: E402
import torch  # noqa: E402


def main():
    model = torch.nn.Transformer(512, 8, 6, 6, 2048, dropout=0.0, batch_first=True).eval()
    src, tgt = torch.randn(8, 128, 512), torch.randn(8, 128, 512)
    causal = torch.nn.Transformer.generate_square_subsequent_mask(128)
    for threads in (1, 2):
        torch.set_num_threads(threads)
        with torch.inference_mode():
            ms = median_ms(lambda: model(src, tgt, tgt_mask=causal))
        print("pytorch/transformer6+6/seeds threads:%d %.2f ms" % (threads, ms))


if __name__ == "__main__":
    main()
