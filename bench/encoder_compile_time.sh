#!/usr/bin/env bash
# Compile time and peak compiler memory of a BERT-base encoder of N layers (default N = 1 2 6 12 24):
#   ctf::compile   one translation unit, one SIMD target (AVX2), g++ -O3 (encoder_compile_time.cpp)
#   generator      ctformer_add_model(... layers=N): the model for every target, in two halves built
#                  side by side, and its generator; wall time on 2 cores (compile_time/CMakeLists.txt)
#   HF_CONFIG      ctformer_add_model(bert_base_hf HF_CONFIG bert-base-uncased.json PARAMS seq=128
#                  output=pooler): the whole model, ids to pooler output, every target; and
#                  TinyLlama-1.1B's config.json (tinyllama_hf): ids to logits, every target
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
cmake --build "$dir" --target ctformer-gen -j 2 > /dev/null
# A model's build on 2 cores: the wall time of cmake --build -j 2, and the compiler's time in each
# translation unit (its two halves for the targets, the generator, the generated NAME.cpp) summed.
model_build() {
    : > "$dir/compile_times.log"
    local start end
    start=$(date +%s.%N)
    cmake --build "$dir" --target "$1" -j 2 > /dev/null
    end=$(date +%s.%N)
    awk -v what="$2" -v wall="$(echo "$end - $start" | bc)" '/model_targets|generator_main|\/(bert|tinyllama)[_a-z0-9]*\.cpp/ { t += $1; u += $3; if ($5 > m) m = $5 }
         END { printf "  %s: %.1f s on 2 cores (compilers: %.1f s, %.1f s user), %d KiB peak\n", what, wall, t, u, m }' "$dir/compile_times.log"
}
echo "ctformer_add_model(... layers=N), every target (the model's two halves, the generator, NAME.cpp):"
for n in "${layers[@]}"; do model_build "bert_$n" "N=$n"; done
echo "ctformer_add_model(bert_base_hf HF_CONFIG bert-base-uncased.json), every target:"
model_build bert_base_hf "BERT-base, ids to pooler output"
echo "ctformer_add_model(tinyllama_hf HF_CONFIG tinyllama.json), every target:"
model_build tinyllama_hf "TinyLlama-1.1B, ids to logits"
