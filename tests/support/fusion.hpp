// Checking a fusion rule: it rewrote what it should (the fused node is there) and kept the values
// (the reference evaluator gives the same numbers before and after, to double rounding).
#pragma once

#include <string>

#include <ctformer/inspect/print.hpp>
#include <ctformer/passes/pipeline.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "tensors.hpp"

namespace test {

// The graph after Rule alone; fails the test unless `fused_line` now appears in its printed tree
// and the values are unchanged (token ids, if it reads any, from 0 to vocabulary - 1).
template <class Rule, class G>
auto expect_fused(const G& g, const std::string& fused_line, std::size_t batch = 2, std::size_t vocabulary = 1) {
    auto after = ctf::passes::run_pass<Rule>(g);
    const std::string before_text = ctf::to_string(g), after_text = ctf::to_string(after);
    EXPECT_EQ(before_text.find(fused_line), std::string::npos) << before_text;
    EXPECT_NE(after_text.find(fused_line), std::string::npos) << after_text;
    const ctf::tensor_map inputs = ctf::reference::random_inputs(g, batch, 7);
    const ctf::id_map ids = ctf::reference::random_ids(g, batch, vocabulary, 7);
    expect_close(ctf::reference::evaluate(after, inputs, ids), ctf::reference::evaluate(g, inputs, ids), {.atol = 1e-12});
    return after;
}

}  // namespace test
