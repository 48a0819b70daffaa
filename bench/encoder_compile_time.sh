#!/usr/bin/env bash
# Compile time and peak compiler memory of an N-layer encoder (declare, print, evaluate):
#   bench/encoder_compile_time.sh [layers...]     (default: 1 2 6 12)
# Bindings keep the expression flat, so both should grow linearly with N.
set -euo pipefail
cd "$(dirname "$0")/.."
for layers in "${@:-1 2 6 12}"; do
    for n in $layers; do
        /usr/bin/time -f "layers=$n  %e s  %M KiB peak" \
            g++ -std=c++20 -O2 -Iinclude -DLAYERS="$n" -c bench/encoder_compile_time.cpp -o /dev/null
    done
done
