// Files made by others, committed in tests/data/files/ (tests/data/make_files.py): .npy files that
// numpy wrote, and a .safetensors file laid out by the format's own rules, read as their makers
// meant them; what ctformer does not take is refused by name.
#include <gtest/gtest.h>

#include <string>

#include <ctformer/runtime/npy.hpp>
#include <ctformer/runtime/safetensors.hpp>

namespace ctf = ctformer;

namespace {

std::string file(const std::string& name) { return std::string(CTFORMER_FILES_DIR) + "/" + name; }

// 0.5·i - 3, as make_files.py writes every tensor.
std::vector<float> written(std::size_t count) {
    std::vector<float> v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = 0.5f * static_cast<float>(i) - 3.0f;
    return v;
}

TEST(NumpyFiles, Float32InEveryShapeAndHeaderVersion) {
    const std::pair<const char*, ctf::dims_t> cases[] = {
        {"f4_2x3.npy", {2, 3}},   {"f4_2x3x4.npy", {2, 3, 4}}, {"f4_5.npy", {5}},
        {"f4_scalar.npy", {}},    {"f4_0x3.npy", {0, 3}},      {"f4_2x3_version2.npy", {2, 3}},
        {"f4_big_endian.npy", {2, 3}},
    };
    for (const auto& [name, dims] : cases) {
        const ctf::host_tensor<float> t = ctf::read_npy(file(name));
        EXPECT_EQ(t.dims, dims) << name;
        EXPECT_EQ(t.data, written(ctf::element_count(dims))) << name;
    }
}

TEST(NumpyFiles, OtherDtypesAndFortranOrderAreRefused) {
    const std::pair<const char*, const char*> cases[] = {
        {"f8_2x3.npy", "dtype '<f8' is not float32"},
        {"i4_2x3.npy", "dtype '<i4' is not float32"},
        {"f4_fortran.npy", "Fortran order"},
    };
    for (const auto& [name, words] : cases) {
        try {
            ctf::read_npy(file(name));
            ADD_FAILURE() << name << " was read";
        } catch (const ctf::file_error& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    }
}

TEST(NumpyFiles, TokenIdsOfInt32AndInt64) {
    const std::vector<std::int32_t> ids{0, 5, 50256, 7, 2147483647, -1};
    for (const char* name : {"i8_2x3.npy", "i8_big_endian.npy", "i4_ids_2x3.npy"}) {
        const ctf::id_tensor t = ctf::read_npy_ids(file(name));
        EXPECT_EQ(t.dims, (ctf::dims_t{2, 3})) << name;
        EXPECT_EQ(t.data, ids) << name;
    }
    const std::pair<const char*, const char*> refused[] = {
        {"i8_past_int32.npy", "the token id 2147483648 at [1] does not fit int32"},
        {"f4_2x3.npy", "dtype '<f4' is not token ids"},
    };
    for (const auto& [name, words] : refused) {
        try {
            ctf::read_npy_ids(file(name));
            ADD_FAILURE() << name << " was read";
        } catch (const ctf::file_error& e) {
            EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
        }
    }
}

TEST(SafetensorsFiles, LaidOutByTheFormatsRules) {
    const ctf::safetensors_file f(file("three_dtypes.safetensors"));
    EXPECT_EQ(f.metadata().at("format"), "pt");
    EXPECT_EQ(f.tensor("b.f32").dims, (ctf::dims_t{2, 3}));
    EXPECT_EQ(f.tensor("b.f32").data, written(6));
    EXPECT_EQ(f.tensor("a.f16").data, written(4));   // 0.5·i - 3 is exact in half precision
    EXPECT_EQ(f.tensor("c.bf16").data, written(4));  // and in bfloat16
    EXPECT_EQ(f.tensor("c.bf16").dims, (ctf::dims_t{2, 2}));
}

}  // namespace
