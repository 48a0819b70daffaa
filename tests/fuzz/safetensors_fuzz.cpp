// libFuzzer target: any bytes given to the .safetensors reader either read, or throw ctformer::error;
// never a crash, an out-of-bounds read (AddressSanitizer) or another exception.
#include <cstddef>
#include <cstdint>

#include <ctformer/runtime/safetensors.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const ctformer::safetensors_file file("fuzz.safetensors", {reinterpret_cast<const std::byte*>(data), size});
        for (const auto& [name, entry] : file.entries()) {
            try {
                file.tensor(name);
            } catch (const ctformer::file_error&) {  // F64 or an integer dtype: refused by design
            }
            try {
                file.ids(name);
            } catch (const ctformer::file_error&) {  // not an integer dtype, or an id past int32
            }
        }
    } catch (const ctformer::error&) {
    }
    return 0;
}
