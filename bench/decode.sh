#!/usr/bin/env bash
# Issue 17's decoding table in one command: GPT-2 small, a 256-token prompt (its prefill at 1 and 2
# threads), then 64 tokens one step at a time, batch 1 and 8, 1 thread; ctformer
# (bench/decode_bench.cc, with the FMA peak and the read bandwidth of one core) and PyTorch with its
# own KV cache (bench/pytorch_decode.py) in the same run. ctformer runs on build-bench's
# CTFORMER_ARCH_FLAGS target (AVX2 by default); --avx2 holds PyTorch to AVX2 too.
#   bench/decode.sh [--avx2] [build directory]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --avx2 ]]; then export ATEN_CPU_CAPABILITY=avx2; shift; fi
build=${1:-build-bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCTFORMER_BUILD_BENCH=ON -DCTFORMER_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target decode_bench -j "$(nproc)" > /dev/null
"$build/bench/decode_bench" --benchmark_counters_tabular=true
if /usr/bin/python3 -c "import torch" 2>/dev/null; then /usr/bin/python3 bench/pytorch_decode.py; fi
