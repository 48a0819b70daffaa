// bfloat16, the high 16 bits of an fp32: how weights are rounded to it (packing, gemm.hpp) and widened
// back (the .safetensors BF16 dtype, safetensors.hpp).
#pragma once

#include <bit>
#include <cstdint>

namespace ctformer::kernels {

// x rounded to the nearest bfloat16 (ties to even), as its 16 bits; a NaN stays a NaN.
inline std::uint16_t bfloat16_bits(float x) {
    const auto bits = std::bit_cast<std::uint32_t>(x);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
    return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

// The fp32 whose high 16 bits are b: exact.
inline float bfloat16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

}  // namespace ctformer::kernels
