// The program a model lowers to, as explain() and the DOT picture show it, is what runs: its steps,
// in their order, a repeat's body once per iteration, and the data flow between them.
#include <gtest/gtest.h>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/inspect/dot.hpp>

#include <set>
#include <sstream>

#include "support/recorded_run.hpp"

namespace {
constexpr ctf::nn::config cfg{.d_model = 64, .heads = 4, .d_ff = 128};
auto x = ctf::input<"x", ctf::batch, 37, 64>();
auto stack_of_3 = ctf::nn::encoder<cfg, 3>(x, ctf::causal);

// The slot a step reads, as the data flow names its producer: the step that writes it (a repeat's
// input: the step that writes its argument), or -1 - slot for an input.
long producer(const ctf::plan::program& p, ctf::plan::slot_id read) {
    for (const auto& r : p.repeats)
        if (read == r.input) read = r.argument;
    if (p.slots[read].kind == ctf::plan::slot_kind::input) return -1 - static_cast<long>(read);
    for (std::size_t k = 0; k < p.steps.size(); ++k)
        if (p.steps[k].writes == read) return static_cast<long>(k);
    return -1000;  // a weight or constant: not drawn
}

TEST(Plan, TheStepsExplainPrintsAreTheStepsThatRun) {
    const auto [model, ran] = test::recorded_run(stack_of_3, 3, 2);
    const ctf::plan::program& p = model.program();
    ASSERT_EQ(p.repeats.size(), 1u);  // the layer's steps, all of them, three times in order
    ASSERT_EQ(p.repeats[0].first, 0u);
    ASSERT_EQ(p.repeats[0].end, p.steps.size());
    std::vector<std::pair<std::size_t, int>> planned;
    for (int layer = 0; layer < 3; ++layer)
        for (std::size_t k = 0; k < p.steps.size(); ++k) planned.emplace_back(k, layer);
    ASSERT_EQ(ran.size(), planned.size());
    for (std::size_t i = 0; i < ran.size(); ++i)
        EXPECT_EQ(std::pair(ran[i].step, ran[i].iteration), planned[i]) << "step run " << i;
    const std::string table = ctf::plan_table(p, {3});  // explain()'s table: each step on its row
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const auto row = std::to_string(k) + "   " + (p.steps[k].repeat >= 0 ? "  " : "") + p.steps[k].kernel;
        const std::size_t at = table.find("\n" + row);
        ASSERT_NE(at, std::string::npos) << row << " in\n" << table;
        const std::string line = table.substr(at + 1, table.find('\n', at + 1) - at - 1);
        EXPECT_NE(line.find(" " + ctf::detail::reads_text(p, p.steps[k]) + " "), std::string::npos) << line;
        EXPECT_NE(line.find(" " + p.slots[p.steps[k].writes].name + " "), std::string::npos) << line;
    }
    EXPECT_NE(table.find("×3 (layers.0. … layers.2.)"), std::string::npos) << table;
}

TEST(Plan, TheDotPictureDrawsTheDataFlow) {
    const auto model = ctf::compile(stack_of_3);
    const ctf::plan::program& p = model.program();
    std::set<std::pair<long, std::size_t>> flow;  // producer -> consumer, from the slots
    for (std::size_t k = 0; k < p.steps.size(); ++k)
        for (const auto& read : p.steps[k].reads)
            if (const long from = producer(p, read.slot); from != -1000) flow.emplace(from, k);
    std::set<std::pair<long, std::size_t>> drawn;
    std::istringstream dot(ctf::to_dot(p, {3}));
    const auto node = [](const std::string& id) { return id[0] == 'i' ? -1 - std::stol(id.substr(2)) : std::stol(id.substr(1)); };
    for (std::string line; std::getline(dot, line);) {
        std::istringstream words(line);
        std::string from, arrow, to;
        if (words >> from >> arrow >> to && arrow == "->" && line.find("dashed") == std::string::npos)
            drawn.emplace(node(from), static_cast<std::size_t>(node(to.substr(0, to.find(';')))));
    }
    EXPECT_EQ(drawn, flow);
    EXPECT_FALSE(flow.empty());
}
}  // namespace
