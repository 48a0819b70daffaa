// libFuzzer target: any bytes given to the .npy readers (float32, token ids and masks) either read, or
// throw ctformer::error.
#include <cstddef>
#include <cstdint>

#include <ctformer/runtime/npy.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes{reinterpret_cast<const std::byte*>(data), size};
    try {
        ctformer::npy_from_bytes("fuzz.npy", bytes);
    } catch (const ctformer::error&) {
    }
    try {
        ctformer::npy_ids_from_bytes("fuzz.npy", bytes);
    } catch (const ctformer::error&) {
    }
    try {
        ctformer::npy_mask_from_bytes("fuzz.npy", bytes);
    } catch (const ctformer::error&) {
    }
    return 0;
}
