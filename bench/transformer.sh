#!/usr/bin/env bash
# Issue 17's nn.Transformer table in one command: 6 + 6 layers at the seeds' widths, B = 8, lengths
# 128, causal target; ctformer (bench/transformer_bench.cc) and PyTorch (bench/pytorch_transformer.py)
# in the same run, with the FMA peak. ctformer runs on build-bench's CTFORMER_ARCH_FLAGS target (AVX2
# by default); --avx2 holds PyTorch to AVX2 too, else it takes the widest vectors this CPU has.
#   bench/transformer.sh [--avx2] [build directory]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --avx2 ]]; then export ATEN_CPU_CAPABILITY=avx2; shift; fi
build=${1:-build-bench}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCTFORMER_BUILD_BENCH=ON -DCTFORMER_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target transformer_bench -j "$(nproc)" > /dev/null
"$build/bench/transformer_bench" --benchmark_counters_tabular=true
if /usr/bin/python3 -c "import torch" 2>/dev/null; then /usr/bin/python3 bench/pytorch_transformer.py; fi
