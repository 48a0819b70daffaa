#!/usr/bin/python3
"""The PyTorch peer of bench/mixed_bench.cc: nn.TransformerEncoder (one layer, and six) given the
padded [16, 256, 512] batch and src_key_padding_mask, in eval mode under torch.inference_mode(), with
enable_nested_tensor=True: PyTorch's fast path packs the batch into a nested tensor and skips the
padding. The lengths come from CTFORMER_MIXED_LENGTHS (bench/mixed_lengths.sh); OpenBLAS is named for
the core as in bench/pytorch_peer.py. Prints one line per case: name, threads, ms.
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import pytorch_peer  # noqa: E402,F401  (sets OPENBLAS_CORETYPE before torch loads)
import torch  # noqa: E402

LONGEST, D, HEADS, D_FF = 256, 512, 8, 2048


def median_ms(f, repetitions=3, min_seconds=0.5):
    f()
    runs = []
    for _ in range(repetitions):
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < min_seconds:
            f()
            n += 1
        runs.append((time.perf_counter() - start) / n * 1e3)
    return statistics.median(runs)


def main():
    lengths = [int(n) for n in os.environ["CTFORMER_MIXED_LENGTHS"].split()]
    x = torch.randn(len(lengths), LONGEST, D)
    pad = torch.arange(LONGEST)[None, :] >= torch.tensor(lengths)[:, None]  # True = padding
    for layers, name in [(1, "enc"), (6, "enc6")]:
        layer = torch.nn.TransformerEncoderLayer(D, HEADS, D_FF, dropout=0.0, batch_first=True)
        model = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=True).eval()
        for threads in (1, 2):
            torch.set_num_threads(threads)
            with torch.inference_mode():
                ms = median_ms(lambda: model(x, src_key_padding_mask=pad))
            print("pytorch/%s/S2mixed threads:%d %.2f ms" % (name, threads, ms))


if __name__ == "__main__":
    main()
