// Hugging Face checkpoint folders: one model.safetensors, or shards listed by
// model.safetensors.index.json, F32, F16 and BF16 read alike as fp32, each tensor when asked; a
// missing shard, a map and shards that disagree, and a folder with neither file are file_errors
// naming what is wrong.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include <ctformer/runtime/checkpoint.hpp>

#include "support/temp_path.hpp"

namespace ctf = ctformer;

namespace {

// A tensor as a file stores it: its dtype, shape and raw little-endian bytes.
struct stored {
    std::string dtype;
    ctf::dims_t shape;
    std::string bytes;
};

template <class T>
std::string raw(std::initializer_list<T> values) {
    std::string bytes;
    for (T v : values) bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
    return bytes;
}

// 1.5 and -2 in each float dtype (exact in all three), and an I64 buffer as HF saves position_ids.
const stored a_f32{"F32", {2}, raw<float>({1.5f, -2.0f})};
const stored b_f16{"F16", {1, 2}, raw<std::uint16_t>({0x3e00, 0xc000})};
const stored c_bf16{"BF16", {2}, raw<std::uint16_t>({0x3fc0, 0xc000})};
const stored ids_i64{"I64", {3}, raw<std::int64_t>({0, 1, 2})};

void save(const std::filesystem::path& path, const std::map<std::string, stored>& tensors) {
    nlohmann::json header = nlohmann::json::object();
    std::string data;
    for (const auto& [name, t] : tensors) {
        header[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
        data += t.bytes;
    }
    const std::string text = header.dump();
    const std::uint64_t length = text.size();
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&length), 8) << text << data;
}

std::filesystem::path folder() {
    const auto dir = test::temp_path("checkpoint");
    std::filesystem::create_directories(dir);
    return dir;
}

void save_index(const std::filesystem::path& dir, const std::map<std::string, std::string>& weight_map) {
    std::ofstream(dir / "model.safetensors.index.json")
        << nlohmann::json{{"metadata", {{"total_size", 20}}}, {"weight_map", weight_map}}.dump();
}

// a, b and c as fp32, and nothing else (the I64 buffer left out).
void expect_abc(const ctf::tensor_map& loaded) {
    ASSERT_EQ(loaded.size(), 3u);
    EXPECT_EQ(loaded.at("a").data, (std::vector<float>{1.5f, -2.0f}));
    EXPECT_EQ(loaded.at("b").data, (std::vector<float>{1.5f, -2.0f}));
    EXPECT_EQ(loaded.at("b").dims, (ctf::dims_t{1, 2}));
    EXPECT_EQ(loaded.at("c").data, (std::vector<float>{1.5f, -2.0f}));
}

// The file_error loading `dir` throws: for `tensor`, naming `file` and saying `words`.
void expect_error(const std::filesystem::path& dir, const std::string& file, const std::string& tensor,
                  const std::string& words) {
    try {
        ctf::load_checkpoint(dir);
        ADD_FAILURE() << dir << " was loaded";
    } catch (const ctf::file_error& e) {
        EXPECT_EQ(e.file(), file) << e.what();
        EXPECT_EQ(e.tensor(), tensor) << e.what();
        EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
}

TEST(Checkpoint, OneFile) {
    const auto dir = folder();
    save(dir / "model.safetensors", {{"a", a_f32}, {"b", b_f16}, {"c", c_bf16}, {"position_ids", ids_i64}});
    expect_abc(ctf::load_checkpoint(dir));
}

TEST(Checkpoint, TwoShards) {
    const auto dir = folder();
    save(dir / "model-1.safetensors", {{"a", a_f32}, {"b", b_f16}});
    save(dir / "model-2.safetensors", {{"c", c_bf16}, {"position_ids", ids_i64}});
    save_index(dir, {{"a", "model-1.safetensors"}, {"b", "model-1.safetensors"}, {"c", "model-2.safetensors"},
                     {"position_ids", "model-2.safetensors"}});
    expect_abc(ctf::load_checkpoint(dir));
}

TEST(Checkpoint, MissingShardFile) {
    const auto dir = folder();
    save(dir / "model-1.safetensors", {{"a", a_f32}});
    save_index(dir, {{"a", "model-1.safetensors"}, {"c", "model-2.safetensors"}});
    expect_error(dir, (dir / "model-2.safetensors").string(), "", "is missing");
}

TEST(Checkpoint, TensorMissingFromItsShard) {
    const auto dir = folder();
    save(dir / "model-1.safetensors", {{"a", a_f32}});
    save(dir / "model-2.safetensors", {{"c", c_bf16}});
    save_index(dir, {{"a", "model-1.safetensors"}, {"b", "model-2.safetensors"}, {"c", "model-2.safetensors"}});
    expect_error(dir, (dir / "model-2.safetensors").string(), "b", "not in the shard");
}

TEST(Checkpoint, ShardHoldsATensorNotListedForIt) {
    const auto dir = folder();
    save(dir / "model-1.safetensors", {{"a", a_f32}, {"c", c_bf16}});
    save(dir / "model-2.safetensors", {{"c", c_bf16}});
    save_index(dir, {{"a", "model-1.safetensors"}, {"c", "model-2.safetensors"}});
    expect_error(dir, (dir / "model-1.safetensors").string(), "c", "lists it in model-2.safetensors");
    save_index(dir, {{"a", "model-1.safetensors"}});
    expect_error(dir, (dir / "model-1.safetensors").string(), "c", "lists it for no shard");
}

TEST(Checkpoint, IndexRefusedByName) {
    const auto dir = folder();
    save_index(dir, {{"a", "../model-1.safetensors"}});
    expect_error(dir, (dir / "model.safetensors.index.json").string(), "a", "is not a file name in the checkpoint's folder");
    std::ofstream(dir / "model.safetensors.index.json") << "{\"weight_map\": ";
    expect_error(dir, (dir / "model.safetensors.index.json").string(), "", "is not valid JSON");
}

TEST(Checkpoint, NeitherFile) {
    const auto dir = folder();
    expect_error(dir, dir.string(), "", "holds neither model.safetensors nor model.safetensors.index.json");
}

}  // namespace

// A checkpoint opened is a weight_source: every name and shape at once, each tensor's values when
// asked, by the base model's names when a prefix is dropped; a name given both ways is refused.
TEST(Checkpoint, ReadsEachTensorWhenAsked) {
    const auto dir = folder();
    save(dir / "model-1.safetensors", {{"bert.a", a_f32}, {"b", b_f16}});
    save(dir / "model-2.safetensors", {{"bert.c", c_bf16}, {"position_ids", ids_i64}});
    save_index(dir, {{"bert.a", "model-1.safetensors"}, {"b", "model-1.safetensors"}, {"bert.c", "model-2.safetensors"},
                     {"position_ids", "model-2.safetensors"}});
    const ctf::checkpoint opened(dir, "bert.");
    EXPECT_EQ(opened.shapes(), (std::map<std::string, ctf::dims_t>{{"a", {2}}, {"b", {1, 2}}, {"c", {2}}}));
    EXPECT_EQ(opened.tensor("c").data, (std::vector<float>{1.5f, -2.0f}));  // BF16, widened when asked
    expect_abc(opened.tensors());
    save(dir / "model-2.safetensors", {{"a", c_bf16}, {"bert.c", c_bf16}});
    save_index(dir, {{"bert.a", "model-1.safetensors"}, {"b", "model-1.safetensors"}, {"a", "model-2.safetensors"},
                     {"bert.c", "model-2.safetensors"}});
    try {
        ctf::checkpoint both(dir, "bert.");
        ADD_FAILURE() << "a tensor given both ways was kept";
    } catch (const ctf::conflicting_tensor& e) {
        EXPECT_EQ(e.tensor(), "a") << e.what();
    }
}

// A head's checkpoint by its base model's names: "bert." dropped, the head's tensors kept.
TEST(Checkpoint, BaseModelNamesWithoutThePrefix) {
    const ctf::host_tensor<float> one({1}, {1.0f}), two({1}, {2.0f});
    const auto base = ctf::without_prefix({{"bert.pooler.dense.bias", one}, {"classifier.bias", two}}, "bert.");
    ASSERT_EQ(base.size(), 2u);
    EXPECT_EQ(base.at("pooler.dense.bias").data, one.data);
    EXPECT_EQ(base.at("classifier.bias").data, two.data);
    try {
        ctf::without_prefix({{"bert.pooler.dense.bias", one}, {"pooler.dense.bias", two}}, "bert.");
        ADD_FAILURE() << "a tensor given both ways was kept";
    } catch (const ctf::conflicting_tensor& e) {
        EXPECT_EQ(e.tensor(), "pooler.dense.bias") << e.what();
    }
}
