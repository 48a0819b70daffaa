// PyTorch's names: in_proj_weight/in_proj_bias split into q/k/v, a user's map from ctformer names to
// the file's, and a multi-head attention evaluated from a state_dict file equal to the same weights
// given under ctformer's names.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include <ctformer/ctformer.hpp>
#include <ctformer/reference/evaluate.hpp>
#include <ctformer/reference/random_inputs.hpp>
#include <ctformer/runtime/state_dict.hpp>

#include "support/temp_path.hpp"

namespace {

// A .safetensors file of F32 tensors.
std::filesystem::path save(const ctf::tensor_map& tensors, const std::string& name) {
    nlohmann::json header;
    std::string data;
    for (const auto& [tensor_name, t] : tensors) {
        header[tensor_name] = {{"dtype", "F32"}, {"shape", t.dims}, {"data_offsets", {data.size(), data.size() + 4 * t.size()}}};
        data.append(reinterpret_cast<const char*>(t.data.data()), 4 * t.size());
    }
    const std::string text = header.dump();
    const std::uint64_t length = text.size();
    const auto path = test::temp_path(name);
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(&length), 8).write(text.data(), static_cast<std::streamsize>(text.size()));
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    return path;
}

constexpr ctf::nn::config cfg{.d_model = 8, .heads = 2};

// The attention's weights as nn.MultiheadAttention's state_dict names them.
ctf::tensor_map as_pytorch(const ctf::tensor_map& ours, const std::string& prefix) {
    ctf::tensor_map theirs;
    for (const char* kind : {"weight", "bias"}) {
        std::vector<float> stacked;
        for (const char* part : {"q", "k", "v"}) {
            const auto& t = ours.at(prefix + part + "_proj_" + kind);
            stacked.insert(stacked.end(), t.data.begin(), t.data.end());
        }
        const ctf::dims_t dims = std::string(kind) == "weight" ? ctf::dims_t{24, 8} : ctf::dims_t{24};
        theirs.emplace(prefix + "in_proj_" + kind, ctf::host_tensor<float>(dims, stacked));
    }
    for (const char* name : {"out_proj.weight", "out_proj.bias"}) theirs.emplace(prefix + name, ours.at(prefix + name));
    return theirs;
}

TEST(StateDict, InProjectionsSplitInThree) {
    auto x = ctf::input<"x", ctf::batch, 3, 8>();
    auto mha = ctf::nn::multi_head_attention<cfg, "self_attn.">(x);
    const ctf::tensor_map ours = ctf::reference::random_inputs(mha, 2);
    ctf::tensor_map loaded = ctf::load_state_dict(save(as_pytorch(ours, "self_attn."), "mha.safetensors"));
    loaded.emplace("x", ours.at("x"));
    const auto want = ctf::reference::evaluate(mha, ours);
    EXPECT_EQ(ctf::reference::evaluate(mha, loaded).data, want.data);
}

TEST(StateDict, UserNamesMapToCtformerNames) {
    const ctf::tensor_map file_tensors{{"W_q.weight", ctf::host_tensor<float>({2}, {1, 2})},
                                       {"other", ctf::host_tensor<float>({1}, {3})}};
    const auto path = save(file_tensors, "seeds.safetensors");
    const ctf::tensor_map loaded = ctf::load_state_dict(path, {{"q_proj_weight", "W_q.weight"}});
    EXPECT_EQ(loaded.at("q_proj_weight").data, (std::vector<float>{1, 2}));
    EXPECT_EQ(loaded.count("W_q.weight"), 0u);
    EXPECT_EQ(loaded.at("other").data, (std::vector<float>{3}));
    try {
        ctf::load_state_dict(path, {{"k_proj_weight", "W_k.weight"}});
        ADD_FAILURE() << "W_k.weight is not in the file";
    } catch (const ctf::file_error& e) {
        EXPECT_EQ(e.tensor(), "W_k.weight");
        EXPECT_NE(std::string(e.what()).find("seeds.safetensors"), std::string::npos) << e.what();
    }
}

// PyTorch's strict load refuses a separate q_proj_weight beside in_proj_weight; taking either one
// silently would run a model with a weight the user may not have meant.
TEST(StateDict, OneWeightGivenTwiceIsRefused) {
    auto x = ctf::input<"x", ctf::batch, 3, 8>();
    auto mha = ctf::nn::multi_head_attention<cfg, "self_attn.">(x);
    ctf::tensor_map both = as_pytorch(ctf::reference::random_inputs(mha, 3), "self_attn.");
    both.emplace("self_attn.k_proj_bias", ctf::host_tensor<float>({8}));
    try {
        ctf::load_state_dict(save(both, "twice.safetensors"));
        ADD_FAILURE() << "k_proj_bias is given twice";
    } catch (const ctf::conflicting_tensor& e) {
        EXPECT_EQ(e.tensor(), "self_attn.k_proj_bias");
        EXPECT_NE(std::string(e.what()).find("self_attn.in_proj_bias"), std::string::npos) << e.what();
    }
    const auto path = save({{"W_q.weight", ctf::host_tensor<float>({2})}, {"q_proj_weight", ctf::host_tensor<float>({2})}},
                           "mapped_twice.safetensors");
    EXPECT_THROW(ctf::load_state_dict(path, {{"q_proj_weight", "W_q.weight"}}), ctf::conflicting_tensor);
}

// A map may exchange two names: each is read from the file's tensor of the other name.
TEST(StateDict, NamesMapBothWays) {
    const auto path = save({{"a", ctf::host_tensor<float>({1}, {1})}, {"b", ctf::host_tensor<float>({1}, {2})}},
                           "swapped.safetensors");
    const ctf::tensor_map loaded = ctf::load_state_dict(path, {{"a", "b"}, {"b", "a"}});
    EXPECT_EQ(loaded.at("a").data, (std::vector<float>{2}));
    EXPECT_EQ(loaded.at("b").data, (std::vector<float>{1}));
}

TEST(StateDict, InProjectionMustStackThree) {
    ctf::tensor_map bad{{"in_proj_bias", ctf::host_tensor<float>({4})}};
    EXPECT_THROW(ctf::split_in_projections(bad), ctf::shape_mismatch);
}

}  // namespace
