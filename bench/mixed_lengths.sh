#!/usr/bin/env bash
# Issue 15's mixed-length table in one command: batch 16, lengths drawn uniformly from 16..256 with a
# fixed seed, S2 widths, one layer and six; ctformer padded and mixed (bench/mixed_bench.cc) and
# PyTorch's nested-tensor fast path (bench/pytorch_mixed.py), in the same run, with the FMA peak.
# ctformer runs on build-bench's CTFORMER_ARCH_FLAGS target (AVX2 by default); --avx2 holds PyTorch
# to AVX2 too, else it takes the widest vectors this CPU has.
#   bench/mixed_lengths.sh [--avx2]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --avx2 ]]; then export ATEN_CPU_CAPABILITY=avx2; fi
CTFORMER_MIXED_LENGTHS=$(/usr/bin/python3 -c "import random; r = random.Random(2026); print(*[r.randint(16, 256) for _ in range(16)])")
export CTFORMER_MIXED_LENGTHS
echo "lengths: $CTFORMER_MIXED_LENGTHS"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCTFORMER_BUILD_BENCH=ON -DCTFORMER_BUILD_TESTS=OFF > /dev/null
cmake --build build-bench --target mixed_bench -j "$(nproc)" > /dev/null
build-bench/bench/mixed_bench --benchmark_counters_tabular=true
if /usr/bin/python3 -c "import torch" 2>/dev/null; then /usr/bin/python3 bench/pytorch_mixed.py; fi
