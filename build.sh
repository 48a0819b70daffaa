#!/usr/bin/env bash
# The two quickstart commands, and the sanitizer run CI adds:
#   ./build.sh demo       build and run the main demo
#   ./build.sh test       build and run every test
#   ./build.sh sanitize   build the tests with AddressSanitizer + UBSan and run them
#   ./build.sh fuzz       fuzz the .safetensors and .npy readers for 25 s each (clang, libFuzzer, ASan)
# Missing Debian packages are installed when run as root, or named in the exact apt-get line to run.
set -euo pipefail
cd "$(dirname "$0")"

what=${1:-}
if [[ $what != demo && $what != test && $what != sanitize && $what != fuzz ]]; then
    echo "usage: ./build.sh demo|test|sanitize|fuzz" >&2
    exit 2
fi

# Each entry: a package, or alternatives separated by '|' (the first is installed when none is).
packages=(cmake g++ "libboost-dev|libboost1.81-dev" libhwy-dev libgtest-dev nlohmann-json3-dev ccache)
[[ $what == fuzz ]] && packages+=(clang libclang-rt-14-dev)
missing=()
for entry in "${packages[@]}"; do
    found=
    for package in ${entry//|/ }; do
        if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then found=1; fi
    done
    [[ -n $found ]] || missing+=("${entry%%|*}")
done
if ((${#missing[@]})); then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        echo "installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    else
        echo "missing packages; run: sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
fi

jobs=$(nproc)
if [[ $what == fuzz ]]; then
    cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCTFORMER_BUILD_FUZZ=ON -DCTFORMER_BUILD_TESTS=OFF
    cmake --build build-fuzz --target safetensors_fuzz npy_fuzz npy_header_fuzz -j "$jobs"
    # Each reader fuzzed for 25 s on a core of its own, as many at a time as there are cores.
    fuzz_reader() {
        mkdir -p "build-fuzz/corpus/$1"
        if "build-fuzz/tests/fuzz/${1}_fuzz" -max_total_time=25 -print_final_stats=1 -artifact_prefix=build-fuzz/ \
            "build-fuzz/corpus/$1" "tests/fuzz/corpus/$1" > "build-fuzz/$1.log" 2>&1; then
            tail -n 12 "build-fuzz/$1.log"
        else
            cat "build-fuzz/$1.log"
            return 1
        fi
    }
    pids=()
    for reader in safetensors npy npy_header; do
        while (($(jobs -rp | wc -l) >= jobs)); do sleep 1; done
        fuzz_reader "$reader" &
        pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    exit
fi
if [[ $what == sanitize ]]; then
    # The code that touches memory at run time, under the sanitizers: kernels, compiled models,
    # threads, file readers, the reference evaluator. -Og -g1 (line tables) keeps the template-heavy
    # build short (the attention kernel test: 67 s of compiler time against 156 s at -O1, measured;
    # Highway's operations are always inlined), and so does what is left to the plain test run: the front end's suites (no kernel
    # runs in them), the examples, the generated models and the PyTorch golden models (large models,
    # minutes to compile, on the runtime and kernels model_tests already runs), and
    # Highway's AVX-512, SSE4 and SSSE3 targets (6528 = AVX3_DL | AVX3 | SSE4 | SSSE3): AVX2, which
    # every x86-64 CI machine runs, and the scalar target, the narrowest vectors, are checked here.
    cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=None -DCTFORMER_BUILD_EXAMPLES=OFF \
        -DCTFORMER_TEST_GENERATOR=OFF -DCTFORMER_TEST_FRONT_END=OFF -DCTFORMER_TEST_PYTORCH=OFF -DCTFORMER_TEST_OPTIMIZATION=-Og \
        -DCMAKE_CXX_FLAGS="-Og -g1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -DHWY_DISABLED_TARGETS=6528"
    cmake --build build-sanitize -j "$jobs"
    # A failed allocation returns null, as without the sanitizer, so that the test of ctformer's
    # out_of_memory error sees what a user's program would.
    ASAN_OPTIONS=allocator_may_return_null=1 ctest --test-dir build-sanitize -j "$jobs" --output-on-failure
    build-sanitize/tests/kernel_tests --gtest_filter=HighwayTargets.* | grep "^Highway targets"
    exit
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
if [[ $what == demo ]]; then
    cmake --build build --target seeds_demo -j "$jobs"
    build/examples/seeds_demo
else
    cmake --build build -j "$jobs"
    ctest --test-dir build -j "$jobs" --output-on-failure
    build/tests/kernel_tests --gtest_filter=HighwayTargets.* | grep "^Highway targets"
fi
