// Steps that read rows of a table by index (dsl/ops/embedding.hpp):
//   embedding               out[t] = table[ids[t]], every id checked against the table's rows first
//   embedding + positions   out[t] = table[ids[t]] + positions[first + p], p the position of token t
//   leading_rows            the table's rows of positions [first + p, first + p + L), copied (a
//                           position table no embedding took)
//   table_row               one row of the table
//   embedding_layer_norm    out[t] = LayerNorm(words[ids[t]] + positions[first + p] + types[type_ids[t]
//                           or the fixed row]): a BERT embedding, each row summed into the output and
//                           normalised there by the row LayerNorm kernel (kernels/rows-inl.h)
// A decoding run's tokens start at extents.position (past its cache), an ordinary run's at 0; a
// packed batch's token t is at position extents.ragged->positions[t].
// Token ids are an id_input's int32 values; the executor hands them over as the step's "ids" operand.
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_PLAN_STEPS_EMBEDDING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_PLAN_STEPS_EMBEDDING_INL_H_
#undef CTFORMER_PLAN_STEPS_EMBEDDING_INL_H_
#else
#define CTFORMER_PLAN_STEPS_EMBEDDING_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <string>

#include <hwy/highway.h>

#include "../../dsl/ops/embedding.hpp"
#include "../../dsl/ops/fused.hpp"
#include "../../core/exceptions.hpp"
#include "../../kernels/elementwise-inl.h"
#include "../../kernels/rows-inl.h"
#include "../../core/parallel.hpp"
#include "../../core/tensor_check.hpp"
#include "../../shape/ragged.hpp"
#include "heads.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::plan::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// A leaf's name, or `otherwise` for a computed operand.
template <class X>
std::string name_or(const char* otherwise) {
    if constexpr (requires { head_t<X>::name; }) return std::string(head_t<X>::name.view());
    else return otherwise;
}

// Every id of `ids` (tokens of them) checked against a table of `rows` rows, before any row is read.
template <class Ids, class Table>
void check_token_ids(const std::int32_t* ids, std::size_t tokens, std::size_t rows, const extent_values& at) {
    for (std::size_t t = 0; t < tokens; ++t)
        if (ids[t] < 0 || static_cast<std::size_t>(ids[t]) >= rows)
            throw token_id_out_of_range(name_or<Ids>("ids"), index_of(dims_of<shape_of_t<Ids>>(at), t), ids[t],
                                        name_or<Table>("table"), rows);
}

template <class E>
    requires is_op<E, embedding_op<false>> || is_op<E, embedding_op<true>>
struct embedding_step {
    using Table = child_t<E, 0>;
    using Ids = child_t<E, 1>;
    static constexpr bool positions = op_t<E>::positions;
    static constexpr std::size_t vocabulary = extents_of<Table>[0], width = extents_of<Table>[1];
    static constexpr bool decodes = true;        // token by token, at its position
    static constexpr bool mixed_lengths = true;  // each packed token at its position

    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E& e) {
        const std::string more = op_of(e).detail();
        return "vocabulary=" + std::to_string(vocabulary) + (more.empty() ? "" : ", " + more);
    }
    static double flops(const extent_values& at) { return positions ? double(elements<shape_of_t<E>>(at)) : 0.0; }
    static std::size_t scratch_bytes() { return 0; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"table", l.value(child<0>(e)), true});
        s.reads.push_back({"ids", l.value(child<1>(e))});
        if constexpr (positions) s.reads.push_back({"positions", l.value(child<2>(e)), true});
    }

    static void launch(const step& s, const launch_args& a) {
        const auto* ids = a.read_as<std::int32_t>("ids");
        const std::size_t tokens = elements<shape_of_t<Ids>>(a.extents), length = extent<Ids>(a.extents);
        check_token_ids<Ids, Table>(ids, tokens, vocabulary, a.extents);
        const std::size_t first = static_cast<std::size_t>(op_of(*static_cast<const E*>(s.node)).first) + a.extents.position;
        const float* position_rows = positions ? a.read("positions") + first * width : nullptr;
        const ragged_batch* ragged = a.extents.ragged;
        parallel_for(tokens / length, a.threads, [&](std::size_t sequence, int) {
            for (std::size_t l = 0, t = sequence * length; l < length; ++l, ++t) {
                const float* row = a.read("table") + static_cast<std::size_t>(ids[t]) * width;
                const std::size_t p = ragged ? ragged->positions[t] : l;
                if constexpr (positions) kt::add_values(width, row, position_rows + p * width, a.out + t * width);
                else std::copy_n(row, width, a.out + t * width);
            }
        });
    }
};

// embedding_layer_norm (fuse_embedding_layer_norm): the word, position and type rows of each token
// summed into its output row ((word + position) + type, as the unfused steps add them), then that
// row layer-normed in place.
template <class E>
    requires is_op<E, embedding_layer_norm_op<true>> || is_op<E, embedding_layer_norm_op<false>>
struct embedding_layer_norm_step {
    static constexpr bool typed = op_t<E>::typed;
    using Table = child_t<E, 0>;
    using Ids = child_t<E, 1>;
    using Types = child_t<E, 3>;
    using TypeIds = child_t<E, typed ? 4 : 1>;
    static constexpr std::size_t vocabulary = extents_of<Table>[0], width = extents_of<Table>[1];
    static constexpr std::size_t type_count = extents_of<Types>[0];
    static constexpr bool decodes = true;        // token by token, at its position
    static constexpr bool mixed_lengths = true;  // each packed token at its position

    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E& e) {
        return "vocabulary=" + std::to_string(vocabulary) + (typed ? ", types=" + std::to_string(type_count) : "") +
               ", " + op_of(e).detail();
    }
    // Two additions and the LayerNorm's 8 per element.
    static double flops(const extent_values& at) { return 10.0 * double(elements<shape_of_t<E>>(at)); }
    static std::size_t scratch_bytes() { return 0; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"table", l.value(child<0>(e)), true});
        s.reads.push_back({"ids", l.value(child<1>(e))});
        s.reads.push_back({"positions", l.value(child<2>(e)), true});
        s.reads.push_back({"types", l.value(child<3>(e)), true});
        if constexpr (typed) s.reads.push_back({"type_ids", l.value(child<4>(e))});
        s.reads.push_back({"gamma", l.value(child<typed + 4>(e))});
        s.reads.push_back({"beta", l.value(child<typed + 5>(e))});
    }

    static void launch(const step& s, const launch_args& a) {
        const auto& op = op_of(*static_cast<const E*>(s.node));
        const auto* ids = a.read_as<std::int32_t>("ids");
        const std::int32_t* type_ids = nullptr;
        if constexpr (typed) type_ids = a.read_as<std::int32_t>("type_ids");
        const std::size_t tokens = elements<shape_of_t<Ids>>(a.extents), length = extent<Ids>(a.extents);
        check_token_ids<Ids, Table>(ids, tokens, vocabulary, a.extents);
        if constexpr (typed) check_token_ids<TypeIds, Types>(type_ids, tokens, type_count, a.extents);
        const std::size_t first = static_cast<std::size_t>(op.first) + a.extents.position;
        const float* words = a.read("table");
        const float* position_rows = a.read("positions") + first * width;
        const float* types = a.read("types");
        const float* type_row = types + static_cast<std::size_t>(typed ? 0 : op.type_row) * width;
        const float *gamma = a.read("gamma"), *beta = a.read("beta");
        const float eps = static_cast<float>(op.eps);
        const ragged_batch* ragged = a.extents.ragged;
        parallel_for(tokens / length, a.threads, [&](std::size_t sequence, int) {
            for (std::size_t l = 0, t = sequence * length; l < length; ++l, ++t) {
                float* out = a.out + t * width;
                const std::size_t p = ragged ? ragged->positions[t] : l;
                kt::add_values(width, words + static_cast<std::size_t>(ids[t]) * width, position_rows + p * width, out);
                const float* type = typed ? types + static_cast<std::size_t>(type_ids[t]) * width : type_row;
                kt::add_values(width, out, type, out);
                kt::residual_layer_norm<width>(1, out, nullptr, gamma, beta, eps, out);
            }
        });
    }
};

// leading_rows: L rows from its first (a decoding run's from its position on); table_row: one.
template <class E>
    requires is_op<E, leading_rows_op> || is_op<E, table_row_op>
struct table_rows_step {
    static constexpr bool one_row = is_op<E, table_row_op>;
    static constexpr bool decodes = true;
    static constexpr bool mixed_lengths = one_row;  // a table's rows by position are not a packed batch's
    static std::string kernel() { return op_t<E>::name; }
    static std::string detail(const E& e) {
        if constexpr (one_row) return "row " + std::to_string(op_of(e).row);
        else return op_of(e).first ? "from row " + std::to_string(op_of(e).first) : "";
    }
    static double flops(const extent_values&) { return 0; }
    static std::size_t scratch_bytes() { return 0; }

    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        s.reads.push_back({"table", l.value(child<0>(e)), true});
    }

    static std::size_t first_row(const E& e, const extent_values& at) {
        if constexpr (one_row) return static_cast<std::size_t>(op_of(e).row);
        else return static_cast<std::size_t>(op_of(e).first) + at.position;
    }

    static void launch(const step& s, const launch_args& a) {
        const std::size_t first = first_row(*static_cast<const E*>(s.node), a.extents);
        std::copy_n(a.read("table") + first * last(extents_of<E>), elements<shape_of_t<E>>(a.extents), a.out);
    }
};

}  // namespace ctformer::plan::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_PLAN_STEPS_EMBEDDING_INL_H_ toggle
