#!/usr/bin/python3
"""The PyTorch peer: nn.MultiheadAttention and nn.TransformerEncoderLayer (and a 6-layer
nn.TransformerEncoder) in eval mode under torch.inference_mode(), batch_first, which takes PyTorch's
fused fast path where it applies (no causal attn_mask). Times each workload of bench/workloads.hpp
on 1, 2 and every hardware thread and writes Google Benchmark's JSON shape to stdout:
    /usr/bin/python3 bench/pytorch_peer.py [--filter REGEX] > pytorch.json

Debian's PyTorch does its products in whatever libblas.so.3 the system selects: the reference BLAS
(about 4 GFLOP/s) unless OpenBLAS is installed (libopenblas0-openmp). OpenBLAS picks its kernels by
CPU model and falls back to its slowest (Prescott) on CPUs it does not know, such as virtual
machines' "Intel Xeon Processor"; a competent user would name the core, so this script does: from
the CPU's flags, or Haswell where the scripts' --avx2 holds PyTorch to AVX2 (ATEN_CPU_CAPABILITY=avx2);
without OpenBLAS it says that the peer is weak, and how to install it.
A core type (and L2 size) the environment already sets is replaced, and the script says so: our
AVX-512 machines export OPENBLAS_CORETYPE=Haswell, which had held the peer to AVX2 (prefill 513 ->
749 ms on a Zen 5 core), a weak peer that flattered ctformer.
"""
import argparse
import json
import os
import re
import statistics
import sys
import time

BLAS = os.path.realpath("/usr/lib/x86_64-linux-gnu/libblas.so.3")


def openblas_core():
    with open("/proc/cpuinfo") as f:
        flags = next((line.split() for line in f if line.startswith("flags")), [])
    return "SkylakeX" if "avx512f" in flags else "Haswell" if "avx2" in flags else None


CORE = "Haswell" if os.environ.get("ATEN_CPU_CAPABILITY") == "avx2" else openblas_core()
if "openblas" in BLAS and CORE:
    inherited = os.environ.get("OPENBLAS_CORETYPE")
    if inherited and inherited != CORE:
        print(f"pytorch peer: OPENBLAS_CORETYPE={inherited} from the environment replaced by {CORE}", file=sys.stderr)
    os.environ["OPENBLAS_CORETYPE"] = CORE
    os.environ.pop("OPENBLAS_L2_SIZE", None)  # OpenBLAS reads the core's own
if "openblas" not in BLAS:
    print(f"pytorch peer: {BLAS} is not OpenBLAS: PyTorch's products run at its few GFLOP/s, a weak peer that "
          "flatters ctformer (sudo apt-get install libopenblas0-openmp)", file=sys.stderr)

import torch  # noqa: E402  (after OPENBLAS_CORETYPE: OpenBLAS reads it when loaded)

WORKLOADS = {  # name: (batch, length, d_model, heads, d_ff, causal); as bench/workloads.hpp
    "S1": (2, 10, 512, 8, 2048, False),
    "S2": (8, 128, 512, 8, 2048, False),
    "S3": (1, 512, 768, 12, 3072, False),
    "S4": (8, 128, 512, 8, 2048, True),
    "S5": (1, 2048, 512, 8, 2048, False),
}


def cases():
    """(what, workload, make): enc_bf16 is enc with the module and its input in bfloat16, as PyTorch
    runs bf16 inference on the CPU (its linear layers through oneDNN, with AVX512-BF16 where the CPU
    has it). A bf16 case also reports how far its output is from the same module's in fp32 (max_err,
    and max_abs, the largest output)."""
    for name, (b, l, d, h, ff, causal) in WORKLOADS.items():
        yield "mha", name, lambda d=d, h=h: torch.nn.MultiheadAttention(d, h, batch_first=True)
        yield "enc", name, lambda d=d, h=h, ff=ff: torch.nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True)
        yield "enc_bf16", name, lambda d=d, h=h, ff=ff: torch.nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True)
        if name in ("S1", "S2"):
            yield "enc6", name, lambda d=d, h=h, ff=ff: torch.nn.TransformerEncoder(
                torch.nn.TransformerEncoderLayer(d, h, ff, dropout=0.0, batch_first=True), 6, enable_nested_tensor=False)


def call(what, module, x, mask):
    what = what.removesuffix("_bf16")
    if what == "mha":
        return module(x, x, x, attn_mask=mask, need_weights=False)
    if what == "enc":
        return module(x, src_mask=mask)
    return module(x, mask=mask)


def median_ms(what, module, x, mask, repetitions=3, min_seconds=0.3):
    call(what, module, x, mask)  # warm up
    runs = []
    for _ in range(repetitions):
        n, start = 0, time.perf_counter()
        while True:
            call(what, module, x, mask)
            n += 1
            took = time.perf_counter() - start
            if took >= min_seconds:
                break
        runs.append(took / n * 1e3)
    return statistics.median(runs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--filter", default=".")
    args = parser.parse_args()
    threads = sorted({1, 2, os.cpu_count() or 1})
    results = []
    with torch.inference_mode():
        for what, name, make in cases():
            b, l, d, h, ff, causal = WORKLOADS[name]
            module = make().eval()
            x = torch.randn(b, l, d)
            mask = torch.nn.Transformer.generate_square_subsequent_mask(l) if causal else None
            error = {}
            if what.endswith("_bf16"):
                want = call(what, module, x, mask)[0 if what.startswith("mha") else slice(None)]
                module, x = module.to(torch.bfloat16), x.to(torch.bfloat16)
                mask = mask.to(torch.bfloat16) if causal else None
                got = call(what, module, x, mask)[0 if what.startswith("mha") else slice(None)].float()
                error = {"max_err": float((got - want).abs().max()), "max_abs": float(want.abs().max())}
            for t in threads:
                case = f"pytorch/{what}/{name}/threads:{t}"
                if not re.search(args.filter, case):
                    continue
                torch.set_num_threads(t)
                ms = median_ms(what, module, x, mask)
                results.append({"name": case, "run_type": "aggregate", "aggregate_name": "median",
                                "real_time": ms, "time_unit": "ms", **error})
    blas = BLAS + (f" (OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']})" if "OPENBLAS_CORETYPE" in os.environ else "")
    if "openblas" not in BLAS:
        print(f"pytorch_peer.py: PyTorch multiplies with {BLAS}, the reference BLAS, about 20x slower than "
              "OpenBLAS: apt-get install libopenblas0-openmp", file=sys.stderr)
    aten = re.search(r"CPU capability usage: (\S+)", torch.__config__.show())
    context = {"peer pytorch": f"PyTorch {torch.__version__}, ATen {aten.group(1) if aten else '?'}, BLAS {blas}"}
    json.dump({"context": context, "benchmarks": results}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
