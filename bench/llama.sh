#!/usr/bin/env bash
# Issue 42's TinyLlama table in one command: a 512-token prefill (fp32, 1 and 2 threads), then tokens
# one step at a time after a 128-token prompt, batch 1 and 8, 1 thread, bf16 weights; ctformer
# (bench/llama_bench.cc, with the FMA peak and the read bandwidth of one core) and PyTorch with its
# own KV cache, fp32 and bf16 (bench/pytorch_llama.py), in the same run. ctformer runs on the build
# directory's CTFORMER_ARCH_FLAGS target.
#   bench/llama.sh [build directory]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCTFORMER_BUILD_BENCH=ON -DCTFORMER_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target llama_bench -j "$(nproc)" > /dev/null
"$build/bench/llama_bench" --benchmark_counters_tabular=true
if /usr/bin/python3 -c "import torch" 2>/dev/null; then /usr/bin/python3 bench/pytorch_llama.py; fi
