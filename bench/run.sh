#!/usr/bin/env bash
# The comparison of issue 6 in one command: builds compare_bench (ctformer, and Eigen and oneDNN
# where installed), runs it and the PyTorch peer (where python3-torch is installed), and prints the
# table; the same rows go to build-bench/compare.csv and build-bench/compare-table.json.
#   bench/run.sh [--avx2] [--readme] [--benchmark_filter=REGEX]     e.g. --benchmark_filter='/S2/'
# Each runs on the widest vectors this CPU has (ctformer and oneDNN choose at run time, PyTorch's
# OpenBLAS by its core type; Eigen is compiled for CTFORMER_ARCH_FLAGS). --avx2 holds every one to
# AVX2, as on an AVX2-only machine. --readme also puts the table into docs/performance.md, in the block
# of the best target or of --avx2 (the flag keeps its name: the tables' commands read so).
set -euo pipefail
cd "$(dirname "$0")/.."
filter=. block=best readme=()
command="bench/run.sh $*"
for arg in "$@"; do
    case $arg in
        --benchmark_filter=*) filter=${arg#--benchmark_filter=} ;;
        --readme) readme=(--readme docs/performance.md) ;;
        --avx2) block=avx2; export CTFORMER_BENCH_TARGET=AVX2 ONEDNN_MAX_CPU_ISA=AVX2 ATEN_CPU_CAPABILITY=avx2 ;;
        *) echo "usage: bench/run.sh [--avx2] [--readme] [--benchmark_filter=REGEX]" >&2; exit 2 ;;
    esac
done

cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCTFORMER_BUILD_BENCH=ON -DCTFORMER_BUILD_TESTS=OFF
cmake --build build-bench --target compare_bench -j "$(nproc)"
build-bench/bench/compare_bench --benchmark_filter="peak|$filter" --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_out=build-bench/compare.json --benchmark_out_format=json
inputs=(build-bench/compare.json)
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
    /usr/bin/python3 bench/pytorch_peer.py --filter "$filter" > build-bench/pytorch.json
    inputs+=(build-bench/pytorch.json)
fi
/usr/bin/python3 bench/report.py "${inputs[@]}" --csv build-bench/compare.csv --json build-bench/compare-table.json \
    "${readme[@]}" --block "$block" --command "$command"
