// The plan of a fused graph: its kernel steps in the order they run (plan/lowering.hpp), each with
// what it writes, its shape, its floating-point work and the scratch it needs.
#pragma once

#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include <boost/hana/drop_front.hpp>
#include <boost/hana/for_each.hpp>

#include "../kernels/attention.hpp"
#include "lowering.hpp"

namespace ctformer::plan {

struct step {
    std::string kernel;
    std::string detail;  // the operation's parameters (epilogue, scale, eps)
    std::string writes;  // the bound name, "result", or "(temporary)"
    std::string shape;
    double flops = 0;
    std::size_t scratch_bytes = 0;  // memory the step needs besides its output
};

namespace detail {
// Attention's scratch per thread, O(block) whatever the length: Kᵀ of one block of keys (and V, when
// its rows are not whole vectors), scores of the most queries of a pass, and the running outputs,
// maxima and sums of a tile of queries (the kernel's blocking, kernels/attention.hpp; vector padding
// aside). Other steps need none.
template <class E>
std::size_t scratch_bytes() {
    if constexpr (is_attention<E> || is_probabilities<E>) {
        using K = child_t<E, 1>;
        using kernels::kKeyBlock, kernels::kQueryTile, kernels::kMostQueryRows;
        constexpr std::size_t block = std::min<std::size_t>(kKeyBlock, last(extents_of<K>, 1));
        constexpr std::size_t dk = last(extents_of<K>), dv = is_attention<E> ? last(extents_of<E>) : 0;
        constexpr std::size_t staged_dv = dv % 16 ? dv : 0;  // not whole AVX-512 vectors: staged
        constexpr std::size_t tile = std::min<std::size_t>(kQueryTile, last(extents_of<E>, 1));
        return sizeof(float) * (block * (dk + staged_dv) + kMostQueryRows * kKeyBlock + tile * (dv + 2));
    } else {
        return 0;
    }
}

struct collector {
    std::size_t batch_size;
    std::vector<step> steps;

    // The steps E's value needs, then E's own, which writes `writes`.
    template <expression E>
    void add(const E& e, const std::string& writes) {
        if constexpr (!is_leaf<E>) {
            if constexpr (merged_heads<E>) operands_through_views(child<0>(e));
            else if constexpr (head_reader<E>) operands_through_views(e);
            else if constexpr (is_gemm<E>) operands_of_gemm(e);
            else hana::for_each(hana::drop_front(e.elements), [&](const auto& c) { add(c, "(temporary)"); });
            push(e, writes);
        }
    }

    // The weight and bias are packed at bind time; A and the residual are read.
    template <expression G>
    void operands_of_gemm(const G& g) {
        add(child<0>(g), "(temporary)");
        if constexpr (epilogue_of<G>::residual) add(child<arity<G> - 1>(g), "(temporary)");
    }

    template <expression A>
    void operands_through_views(const A& a) {
        hana::for_each(hana::drop_front(a.elements), [&](const auto& c) { through_views(c); });
    }

    // split_heads, expand_heads and columns are read through, not computed.
    template <expression E>
    void through_views(const E& e) {
        if constexpr (is_leaf<E>) return;
        else if constexpr (is_op<E, split_heads_op> || is_op<E, expand_heads_op> ||
                           is_columns<E>)
            through_views(child<0>(e));
        else add(e, "(temporary)");
    }

    template <expression E>
    void push(const E& e, const std::string& writes) {
        step s{kernel_name<E>(), "", writes, to_string<shape_of_t<E>>(), flops<E>(batch_size), 0};
        const auto& op = [&]() -> const auto& {
            if constexpr (merged_heads<E>) return op_of(child<0>(e));
            else return op_of(e);
        }();
        if constexpr (has_detail<std::decay_t<decltype(op)>>) s.detail = op.detail();
        if constexpr (merged_heads<E>) s.scratch_bytes = scratch_bytes<child_t<E, 0>>();
        else s.scratch_bytes = scratch_bytes<E>();
        steps.push_back(std::move(s));
    }
};
}  // namespace detail

// The steps of each binding in turn, then those of the result: the last entry.
template <operand G>
std::vector<std::vector<step>> steps_by_binding(const G& g, std::size_t batch_size) {
    std::vector<std::vector<step>> groups;
    const auto add = [&](const auto& e, const std::string& writes) {
        detail::collector c{batch_size, {}};
        c.add(e, writes);
        groups.push_back(std::move(c.steps));
    };
    if constexpr (expression<G>) {
        add(g, "result");
    } else {
        std::apply([&](const auto&... b) { (add(b.definition, std::string(b.name.view())), ...); }, g.bindings);
        add(g.result, "result");
    }
    return groups;
}

template <operand G>
std::vector<step> steps(const G& g, std::size_t batch_size) {
    std::vector<step> all;
    for (std::vector<step>& group : steps_by_binding(g, batch_size))
        all.insert(all.end(), std::make_move_iterator(group.begin()), std::make_move_iterator(group.end()));
    return all;
}

}  // namespace ctformer::plan
