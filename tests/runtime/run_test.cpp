// ctformer::compile as users build it (the static target of CTFORMER_ARCH_FLAGS): results that do
// not depend on the thread count (bitwise), runs from several threads at once, typed errors for
// missing or misshapen tensors, graphs with steps no pass fuses, what explain() and the profile of
// a run show. That the plan explain() shows is what runs (the steps, their order, the DOT picture's
// data flow) and the memory it asks for: tests/plan/.
#include <ctformer/compile.hpp>
#include <ctformer/inspect/profile.hpp>

#include <cstdio>
#include <functional>
#include <iterator>
#include <sstream>
#include <thread>

#include "support/model_check.hpp"
#include "support/recorded_run.hpp"

namespace {
constexpr ctf::nn::config cfg{.d_model = 64, .heads = 4, .d_ff = 128};
auto x = ctf::input<"x", ctf::batch, 37, 64>();

TEST(Run, ResultsDoNotDependOnTheThreadCount) {
    auto graph = ctf::nn::encoder<cfg, 2>(x, ctf::causal);
    auto model = ctf::compile(graph);
    const ctf::tensor_map inputs = test::expect_matches_reference(model, graph, 3);
    const ctf::host_tensor<float> one = model.run(inputs, {1});
    for (int threads : {2, 3, 4, 7}) EXPECT_EQ(model.run(inputs, {threads}).data, one.data) << threads << " threads";
}

TEST(Run, ConcurrentRunsUseSeparateScratch) {
    auto graph = ctf::nn::encoder_layer<cfg>(x);
    auto model = ctf::compile(graph);
    ctf::tensor_map weights = ctf::reference::random_inputs(graph, 1, 11);
    model.bind(weights);
    std::vector<ctf::tensor_map> inputs;
    std::vector<ctf::host_tensor<float>> serial, concurrent(4);
    for (unsigned i = 0; i < 4; ++i) {
        inputs.push_back({{"x", ctf::reference::random_inputs(x, 2 + i, 20 + i).at("x")}});
        serial.push_back(model.run(inputs.back(), {1}));
    }
    std::vector<std::thread> threads;
    for (unsigned i = 0; i < 4; ++i)
        threads.emplace_back([&, i] { concurrent[i] = model.run(inputs[i], {2}); });
    for (auto& t : threads) t.join();
    for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(concurrent[i].data, serial[i].data) << "run " << i;
}

TEST(Run, AdditiveMaskRunsInTheAttentionKernel) {
    auto q = ctf::input<"q", ctf::batch, 2, 5, 8>();
    auto bias = ctf::input<"bias", 5, 5>();
    auto graph = ctf::nn::scaled_dot_product_attention(q, q, q, ctf::additive(bias));
    auto model = ctf::compile(graph);
    test::expect_matches_reference(model, graph, 2);
    ASSERT_EQ(model.program().steps.size(), 1u) << model.explain();
    EXPECT_EQ(model.program().steps[0].kernel, "fused_attention");
    EXPECT_NE(model.program().steps[0].detail.find("additive"), std::string::npos);
}

TEST(Run, SingleInputAndOutputShape) {
    auto graph = ctf::nn::encoder_layer<cfg>(x);
    auto model = ctf::compile(graph);
    const ctf::tensor_map inputs = test::expect_matches_reference(model, graph, 2);
    ctf::host_tensor<float> output;
    model.run(inputs.at("x"), output);
    EXPECT_EQ(output.dims, (ctf::dims_t{2, 37, 64}));
    ctf::host_tensor<float> wrong({2, 37, 63});
    EXPECT_THROW(model.run(inputs.at("x"), wrong), ctf::shape_mismatch);
}

TEST(Run, ErrorsNameTheTensor) {
    auto graph = ctf::nn::encoder_layer<cfg>(x);
    auto model = ctf::compile(graph);
    ctf::tensor_map all = ctf::reference::random_inputs(graph, 2);
    EXPECT_THROW(model.run(all), ctf::error);  // before bind
    ctf::tensor_map missing = all;
    missing.erase("linear2.bias");
    try {
        model.bind(missing);
        ADD_FAILURE() << "bind without linear2.bias";
    } catch (const ctf::missing_tensor& e) {
        EXPECT_EQ(e.tensor(), "linear2.bias");
    }
    ctf::tensor_map misshapen = all;
    misshapen.at("norm1.weight") = ctf::host_tensor<float>({63});
    try {
        model.bind(misshapen);
        ADD_FAILURE() << "bind with norm1.weight [63]";
    } catch (const ctf::shape_mismatch& e) {
        EXPECT_EQ(e.tensor(), "norm1.weight");
        EXPECT_NE(std::string(e.what()).find("expected [_64]"), std::string::npos) << e.what();
    }
    model.bind(all);
    EXPECT_THROW(model.run(ctf::tensor_map{}), ctf::missing_tensor);
    EXPECT_THROW(model.run(ctf::tensor_map{{"x", ctf::host_tensor<float>({2, 36, 64})}}), ctf::shape_mismatch);
}

TEST(Run, ThreadCountsAreBoundedBeforeOpenMPSeesThem) {
    auto graph = ctf::nn::encoder_layer<cfg>(x);
    auto model = ctf::compile(graph);
    const ctf::tensor_map inputs = ctf::reference::random_inputs(graph, 1);
    model.bind(inputs);
    for (int threads : {-1, ctf::most_threads() + 1, 100000})
        EXPECT_THROW(model.run(inputs, {.threads = threads}), ctf::invalid_option) << threads;
    EXPECT_NO_THROW(model.run(inputs, {.threads = ctf::most_threads()}));
}

// As PyTorch's strict load_state_dict: every missing name at once, and given names it does not
// read refused, unless the bind is not strict; the model's inputs may come along.
TEST(Bind, IsStrictAndListsEveryMissingTensor) {
    auto graph = ctf::nn::encoder_layer<cfg>(x);
    auto model = ctf::compile(graph);
    ctf::tensor_map tensors = ctf::reference::random_inputs(graph, 1);
    tensors["decoder.norm.weight"] = ctf::host_tensor<float>({64});
    try {
        model.bind(tensors);
        ADD_FAILURE() << "a stray tensor was bound";
    } catch (const ctf::unexpected_tensor& e) {
        EXPECT_EQ(e.names(), (std::vector<std::string>{"decoder.norm.weight"}));
    }
    EXPECT_NO_THROW(model.bind(tensors, {.strict = false}));
    tensors.erase("linear1.bias");
    for (const char* part : {"q", "k", "v"}) tensors.erase(std::string("self_attn.") + part + "_proj_weight");
    try {
        model.bind(tensors);
        ADD_FAILURE() << "bound without linear1.bias and the Q/K/V weights";
    } catch (const ctf::missing_tensor& e) {  // the Q/K/V weights by PyTorch's one name for them
        EXPECT_EQ(e.tensor(), "self_attn.in_proj_weight");
        const std::string message = e.what();
        EXPECT_NE(message.find("'self_attn.in_proj_weight' is missing (expected shape [_192,_64])"), std::string::npos)
            << message;
        EXPECT_NE(message.find("also missing: linear1.bias [_128]"), std::string::npos) << message;
        EXPECT_NE(message.find("not read by the model: 'decoder.norm.weight'"), std::string::npos) << message;
    }
}

// Activations near fp32's largest: each output is right (the double answer) or loudly wrong (NaN),
// never a finite value far from it. Only rows 0, 5, ..., 35 of the first sequence are scaled (row 0
// holding 1e30), so only their own scores can overflow; every other row sees values up to 1e30
// through the attention and must be right.
TEST(Run, OverflowingActivationsAreRightOrNaN) {
    auto graph = ctf::nn::encoder_layer<cfg>(x);
    auto model = ctf::compile(graph);
    const auto scaled = [](std::size_t row) { return row < 37 && row % 5 == 0; };  // rows of [2 × 37, 64]
    for (const float scale : {1e20f, 1e30f}) {
        ctf::tensor_map inputs = ctf::reference::random_inputs(graph, 2, 13);
        ctf::host_tensor<float>& in = inputs.at("x");
        for (std::size_t i = 0; i < in.size(); ++i)
            if (scaled(i / 64)) in[i] *= scale;
        in[5] = 1e30f;
        model.bind(inputs);
        const ctf::host_tensor<float> got = model.run(inputs, {1});
        const ctf::host_tensor<double> want = ctf::reference::evaluate(graph, inputs);
        std::size_t nan = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
            if (std::isnan(got[i]) && scaled(i / 64)) ++nan;
            else EXPECT_NEAR(got[i], want[i], 1e-4 + 1e-3 * std::abs(want[i])) << "scale " << scale << " at " << i;
        }
        std::printf("inputs ×%g: %zu of the scaled rows' %zu outputs NaN, the rest as in double precision\n", scale,
                    nan, 8 * std::size_t{64});
    }
}

// Inputs at fp32's largest, the whole batch: the Q/K/V products overflow, every score of a row may
// be -inf, and that is no masked row (zeros): each output is the double answer or NaN, as PyTorch's
// is NaN.
TEST(Run, InputsNearTheLargestFloatGiveTheAnswerOrNaN) {
    auto graph = ctf::nn::encoder_layer<cfg>(x);
    auto model = ctf::compile(graph);
    const std::pair<const char*, std::function<float(std::size_t)>> fills[] = {
        {"3.4e38", [](std::size_t) { return 3.4e38f; }},
        {"±3.4e38 alternating", [](std::size_t i) { return i % 2 ? 3.4e38f : -3.4e38f; }},
        {"±3.4e38 halves", [](std::size_t i) { return i < 37 * 64 ? 3.4e38f : -3.4e38f; }},
        {"2.5e38", [](std::size_t) { return 2.5e38f; }}};
    for (const auto& [name, fill] : fills) {
        ctf::tensor_map inputs = ctf::reference::random_inputs(graph, 2, 17);
        ctf::host_tensor<float>& in = inputs.at("x");
        for (std::size_t i = 0; i < in.size(); ++i) in[i] = fill(i);
        model.bind(inputs);
        const ctf::host_tensor<float> got = model.run(inputs, {2});
        const ctf::host_tensor<double> want = ctf::reference::evaluate(graph, inputs);
        for (std::size_t i = 0; i < got.size(); ++i) {
            if (std::isnan(got[i])) continue;
            ASSERT_NEAR(got[i], want[i], 1e-4 + 1e-3 * std::abs(want[i])) << "inputs " << name << " at " << i;
        }
    }
}

TEST(Explain, ShowsEveryPassAndThePlan) {
    auto model = ctf::compile(ctf::nn::encoder_layer<cfg>(x));
    const std::string text = model.explain(8);
    for (const char* expected : {"== declared ==", "== after fuse_attention ==", "== after fuse_qkv ==",
                                 "fuse_positional_encoding: nothing to fuse", "== plan (",
                                 "fused_attention (heads merged)", "residual_layer_norm", "epilogue: +bias relu"})
        EXPECT_NE(text.find(expected), std::string::npos) << expected << " in\n" << text;
    EXPECT_EQ(text.find("reference "), std::string::npos) << "every step of an encoder layer is a kernel\n" << text;
}
}  // namespace

namespace {
auto stack_of_3 = ctf::nn::encoder<cfg, 3>(x, ctf::causal);

TEST(Run, KeepsAValueOfOneIterationOfARepeat) {
    auto model = ctf::compile(stack_of_3);
    const ctf::tensor_map inputs = ctf::reference::random_inputs(stack_of_3, 2);
    model.bind(inputs);
    ctf::host_tensor<float> output, norm1;
    model.run(inputs, output, {.keep = {{"layers.1.norm1", &norm1}}});
    ctf::reference::evaluator evaluate(inputs);
    evaluate(stack_of_3);
    test::expect_close(norm1, evaluate.intermediate("layers.1.norm1"), test::fp32_model, "layers.1.norm1");
    EXPECT_THROW(model.run(inputs, output, {.keep = {{"layers.3.norm1", &norm1}}}), ctf::missing_tensor);
}

// The numbers at the end of a profile row: runs, ms, GFLOP/s, MB moved, GB/s, % of the peak.
std::vector<double> profile_numbers(const std::string& row) {
    std::istringstream words(row);
    std::vector<std::string> all{std::istream_iterator<std::string>(words), {}};
    std::vector<double> numbers;
    for (std::size_t i = all.size() - 6; i < all.size(); ++i) numbers.push_back(std::stod(all[i]));
    return numbers;
}

// The lines of a profile table: the title, the heading, a row per step, the total.
std::vector<std::string> profile_rows(const std::string& table) {
    std::istringstream text(table);
    std::vector<std::string> rows;
    for (std::string row; std::getline(text, row);) rows.push_back(row);
    return rows;
}

// One row per step of the plan, a repeat's steps run once per iteration, the rows adding up to the
// total; a GEMM's bytes are its input, output and packed weights; records of another plan refused.
TEST(Profile, ShowsEveryStepWithItsTimeRateAndBytes) {
    auto [model, records] = test::recorded_run(stack_of_3, 2, 1);  // records: a wrong one is added below
    const std::string table = model.profile(records, 2);
    const std::vector<std::string> rows = profile_rows(table);
    const auto& steps = model.program().steps;
    ASSERT_EQ(rows.size(), steps.size() + 3) << table;  // the title, the heading, the steps, the total
    EXPECT_NE(rows[0].find("FMA peak"), std::string::npos);
    double step_ms = 0;
    for (std::size_t k = 0; k < steps.size(); ++k) {
        const std::string& row = rows[k + 2];
        EXPECT_EQ(row.rfind(std::to_string(k) + " ", 0), 0u) << row;
        EXPECT_NE(row.find(steps[k].kernel), std::string::npos) << row;
        const std::vector<double> n = profile_numbers(row);
        EXPECT_EQ(n[0], steps[k].repeat < 0 ? 1 : 3) << row;
        EXPECT_GT(n[1], 0) << row;
        EXPECT_GT(n[3], 0) << row;
        step_ms += n[1];
    }
    double total_ms = 0;
    ASSERT_EQ(std::sscanf(rows.back().c_str(), "total %lf ms", &total_ms), 1) << rows.back();
    EXPECT_NEAR(total_ms, step_ms, 1e-3 * steps.size());
    std::size_t runs = 0, qkv = steps.size();
    for (std::size_t k = 0; k < steps.size(); ++k) {
        runs += steps[k].repeat < 0 ? 1 : 3;
        if (steps[k].kernel == "gemm" && model.program().slots[steps[k].writes].extents.back() == 192) qkv = k;
    }
    EXPECT_EQ(records.size(), runs);
    ASSERT_LT(qkv, steps.size());  // the Q/K/V GEMM: x [2, 37, 64] in, [2, 37, 192] out, W and bias packed
    EXPECT_EQ(model.program().bytes_moved(qkv, {2}), (2 * 37 * 64 + 2 * 37 * 192 + 192 * 64 + 192) * 4.0);
    records.push_back({steps.size(), -1, 0.0});
    EXPECT_THROW(model.profile(records, 2), ctf::error);
}

// Bound in bf16, the GEMMs' rows and the title name their unit (AVX512-BF16's dot products where the
// CPU has them, else widened), and so does explain(); the other steps' rows do not.
TEST(Profile, NamesTheUnitOfBf16Gemms) {
    auto [model, records] = test::recorded_run(stack_of_3, 2, 1, {.precision = ctf::precision::bf16});
    const ctf::gemm_units gemms = model.gemms(1);
    ASSERT_NE(gemms.unit, ctf::kernels::gemm_unit::fp32);
    EXPECT_EQ(gemms.peak_gflops > 0, gemms.unit == ctf::kernels::gemm_unit::bf16_dot);
    std::cout << "GEMMs bound in bf16 run on: " << ctf::kernels::unit_name(gemms.unit) << "\n";
    const std::string unit = ctf::kernels::unit_name(gemms.unit);
    const std::vector<std::string> rows = profile_rows(model.profile(records, 2));
    EXPECT_NE(rows[0].find("GEMMs " + unit), std::string::npos) << rows[0];
    std::size_t named = 0;
    for (std::size_t k = 0; k < model.program().steps.size(); ++k) {
        const bool gemm = model.program().steps[k].pack != nullptr;
        EXPECT_EQ(rows[k + 2].find(unit) != std::string::npos, gemm) << rows[k + 2];
        named += gemm;
    }
    EXPECT_GE(named, 3u);  // Q/K/V, the output projection, the FFN's two
    EXPECT_NE(model.explain({2}).find(", GEMMs " + unit + ") =="), std::string::npos);
}

// A 2-thread run forks its threads only for steps with the work to pay for them, and the profile
// judges each step against the peak of the cores it ran on: here the Q/K/V GEMM (1.8 MFLOP) on two,
// the LayerNorms (2 × 37 × 64 values) on one.
TEST(Profile, JudgesEachStepByTheCoresItRanOn) {
    auto [model, records] = test::recorded_run(stack_of_3, 2, 2);
    const ctf::plan::program& p = model.program();
    const std::vector<std::string> rows = profile_rows(model.profile(records, 2, 2));
    double peak = 0;
    ASSERT_EQ(std::sscanf(rows[0].c_str() + rows[0].find("FMA peak"), "FMA peak %lf", &peak), 1) << rows[0];
    bool one = false, both = false;
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const int threads = p.threads_of(k, {2}, 2);
        const double work = p.steps[k].flops({2}) + double(p.slots[p.steps[k].writes].elements({2}));
        EXPECT_EQ(threads, work < ctf::plan::program::kThreadedWork ? 1 : 2) << p.steps[k].kernel;
        if (p.steps[k].kernel == "gemm" && p.slots[p.steps[k].writes].extents.back() == 192) {
            EXPECT_EQ(threads, 2);
        }
        if (p.steps[k].kernel.find("layer_norm") != std::string::npos) {
            EXPECT_EQ(threads, 1);
        }
        (threads == 1 ? one : both) = true;
        const std::vector<double> n = profile_numbers(rows[k + 2]);
        // The table rounds GFLOP/s, the peak and the share to their last decimal (0.05 at most each):
        // under the sanitizers the peak is a few GFLOP/s, and that rounding is up to about a percent.
        const double cores_peak = peak / 2 * threads, rounding = 0.05 + 100 * 0.05 / cores_peak + n[5] * 0.05 / peak;
        EXPECT_NEAR(n[5], 100 * n[2] / cores_peak, rounding) << rows[k + 2];
    }
    EXPECT_TRUE(one && both);
}
}  // namespace

namespace {
// A workspace that cannot have its memory says so, with what and how much, never a null pointer.
TEST(Workspace, AFailedAllocationIsATypedError) {
    ctf::runtime::workspace ws;
    try {
        ws.scratch(std::size_t{1} << 60, 1);
        ADD_FAILURE() << "an exabyte of scratch was allocated";
    } catch (const ctf::out_of_memory& e) {
        EXPECT_EQ(e.bytes(), std::size_t{1} << 60);
        EXPECT_NE(std::string(e.what()).find("per-thread scratch"), std::string::npos) << e.what();
    }
}
}  // namespace
