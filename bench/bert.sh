#!/usr/bin/env bash
# Issue 41's tables in one command, with the FMA peak: BERT-base, batch 8 of lengths drawn from
# 16..128, ids to pooler_output; MiniLM-L6 sentence embeddings of 64 sentences of lengths 8..64; one
# sentence of 16. ctformer (bench/bert_bench.cc) and PyTorch (bench/pytorch_bert.py: the same
# Hugging Face BERT, eager on the padded batch, and nn.TransformerEncoder's nested-tensor fast path)
# in the same run, 1 and 2 threads. ctformer runs on the build directory's CTFORMER_ARCH_FLAGS target
# (build-bench: AVX2); --avx2 holds PyTorch to AVX2 too. For AVX-512, a directory configured with
# -DCTFORMER_ARCH_FLAGS="-march=skylake-avx512 -mtune=generic".
#   bench/bert.sh [--avx2] [build directory]
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} == --avx2 ]]; then export ATEN_CPU_CAPABILITY=avx2; shift; fi
build=${1:-build-bench}
draw() { /usr/bin/python3 -c "import random; r = random.Random(2026); print(*[r.randint($1, $2) for _ in range($3)])"; }
CTFORMER_BERT_LENGTHS=$(draw 16 128 8)
CTFORMER_MINILM_LENGTHS=$(draw 8 64 64)
export CTFORMER_BERT_LENGTHS CTFORMER_MINILM_LENGTHS
echo "BERT-base lengths: $CTFORMER_BERT_LENGTHS"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCTFORMER_BUILD_BENCH=ON -DCTFORMER_BUILD_TESTS=OFF > /dev/null
cmake --build "$build" --target bert_bench -j "$(nproc)" > /dev/null
"$build/bench/bert_bench" --benchmark_counters_tabular=true --benchmark_min_time=2  # a few runs of each, not one
if /usr/bin/python3 -c "import torch" 2>/dev/null; then /usr/bin/python3 bench/pytorch_bert.py; fi
