#!/usr/bin/env bash
# Compile time and peak compiler memory of a BERT-base encoder of N layers (default N = 1 2 6 12 24):
#   ctf::compile   one translation unit, one SIMD target (AVX2), g++ -O3 (encoder_compile_time.cpp)
#   generator      ctformer_add_model(... layers=N): its generator, then the model for every target
#                  (compile_time/CMakeLists.txt)
#   HF_CONFIG      ctformer_add_model(bert_base_hf HF_CONFIG bert-base-uncased.json PARAMS seq=128
#                  output=pooler): the whole model, ids to pooler output, every target
#   bench/encoder_compile_time.sh [N ...]
# Layers are one repeated body, so neither should grow with N.
set -euo pipefail
cd "$(dirname "$0")/.."
layers=("${@:-1 2 6 12 24}")
read -r -a layers <<< "${layers[*]}"
flags=(-std=c++20 -O3 -march=haswell -maes -mpclmul -mtune=generic -fopenmp -DHWY_WANT_AVX3_DL -Iinclude)
echo "ctf::compile(encoder<bert_base, N>), one target:"
for n in "${layers[@]}"; do
    /usr/bin/time -f "  N=$n: %e s, %M KiB peak" g++ "${flags[@]}" -DLAYERS="$n" -c bench/encoder_compile_time.cpp -o /dev/null
done
dir=build-compile-time
rm -rf "$dir"
cmake -S bench/compile_time -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCTFORMER_SOURCE_DIR="$PWD" \
      -DLAYERS="$(IFS=';'; echo "${layers[*]}")" > /dev/null
echo "ctformer_add_model(... layers=N), every target (the generator, then the generated model):"
for n in "${layers[@]}"; do
    : > "$dir/compile_times.log"
    cmake --build "$dir" --target "bert_$n" -j 1 > /dev/null
    awk -v n="$n" '/generator_main|bert_[0-9]+\.cpp/ { t += $1; if ($3 > m) m = $3 }
                   END { printf "  N=%s: %.1f s, %d KiB peak\n", n, t, m }' "$dir/compile_times.log"
done
: > "$dir/compile_times.log"
cmake --build "$dir" --target bert_base_hf -j 1 > /dev/null
awk '/generator_main|bert_base_hf\.cpp/ { t += $1; if ($3 > m) m = $3 }
     END { printf "ctformer_add_model(bert_base_hf HF_CONFIG bert-base-uncased.json), every target: %.1f s, %d KiB peak\n", t, m }' \
    "$dir/compile_times.log"
