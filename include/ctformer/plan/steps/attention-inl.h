// The attention steps (kernels/attention-inl.h has the loops), everything the plan knows of them:
//   fused_attention          softmax(mask(scale · Q·Kᵀ)) · V, written as heads or, under
//                            merge_heads, straight into [..., L, heads·D]
//   attention_probabilities  softmax(mask(scale · Q·Kᵀ)) written out [..., heads, Lq, Lk]
// Q, K and V are read through head views (heads.hpp); the key-padding mask, when there is one, is
// [B, Lk] (or [Lk]) floats, non-zero = attend; attend and additive masks are read where they lie,
// broadcast to the scores (shape/broadcast.hpp). Scratch per thread: one key block and one query tile.
// In a decoding run, causal self-attention keeps its keys and values in the run's cache
// (kernels/cached_attention-inl.h): a prompt attends as the full forward does, later tokens over
// the cache; attention over another sequence (an encoder's memory) runs as it is, query by query.
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_PLAN_STEPS_ATTENTION_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_PLAN_STEPS_ATTENTION_INL_H_
#undef CTFORMER_PLAN_STEPS_ATTENTION_INL_H_
#else
#define CTFORMER_PLAN_STEPS_ATTENTION_INL_H_
#endif

#include <algorithm>

#include "../../kernels/attention-inl.h"
#include "../../kernels/cached_attention-inl.h"
#include "../../core/parallel.hpp"
#include "../../core/tensor_check.hpp"
#include "../../shape/broadcast.hpp"
#include "../../shape/ragged.hpp"
#include "heads.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::plan::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;

// Causal attention visits only the keys each query may see (in a sliding window, its last `window`).
template <causality Causal>
constexpr std::size_t visible_pairs(std::size_t lq, std::size_t lk, std::size_t window) {
    std::size_t pairs = 0;
    for (std::size_t i = 0; i < lq; ++i) {
        const std::size_t end = kernels::visible_keys<Causal>(i, lq, lk), first = kernels::first_visible_key(i, window);
        pairs += end > first ? end - first : 0;
    }
    return pairs;
}

// The keys lq queries from `position` on see over a cache: position + 1, position + 2, ..., each at
// most `window` (0: no limit).
constexpr std::size_t cached_pairs(std::size_t lq, std::size_t position, std::size_t window) {
    std::size_t pairs = 0;
    for (std::size_t t = 0; t < lq; ++t) pairs += window ? std::min(position + t + 1, window) : position + t + 1;
    return pairs;
}

// What the two attention steps share. E is the node lowered; A the attention node (E itself, or
// under merge_heads); Dv 0 for the probabilities, which have no values.
template <class E, std::size_t Dv>
struct attention_common {
    using A = heads_node_t<E>;
    using K = operand_t<A, operand_role::key>;
    static_assert(batch_outside_matrices<true, A, K>::value);
    static constexpr bool key_padding = op_t<A>::key_padding;
    static constexpr std::size_t window = op_t<A>::masks.window;
    static constexpr std::size_t dk = last(extents_of<K>);
    using scratch_type = kt::attention_scratch<dk, Dv>;

    // The lengths of queries and keys in this run (at most their declared maxima).
    static std::size_t lq(const extent_values& at) { return extent<A>(at, 1); }
    static std::size_t lk(const extent_values& at) { return extent<K>(at, 1); }

    static const A& node(const E& e) {
        if constexpr (merged_heads<E>) return child<0>(e);
        else return e;
    }
    static std::string detail(const E& e) { return op_of(node(e)).detail(); }
    static std::size_t scratch_bytes() { return scratch_type::bytes(lq({}), lk({})); }  // at the maxima

    // The role each operand of the attention is read by.
    static constexpr std::string_view read_name(operand_role r) {
        switch (r) {
            case operand_role::query: return "q";
            case operand_role::key: return "k";
            case operand_role::value: return "v";
            case operand_role::key_padding: return "key_padding";
            case operand_role::attend: return "attend";
            default: return "additive";
        }
    }

    // The slots of Q and K (and V) that the head views read, then the masks', in the op's order.
    template <class Lower>
    static void lower(const E& e, Lower& l, step& s) {
        [&]<std::size_t... I>(std::index_sequence<I...>) {
            (s.reads.push_back({read_name(op_t<A>::roles[I]), l.value(head_base(child<I>(node(e))))}), ...);
        }(std::make_index_sequence<op_t<A>::roles.size()>{});
    }

    // Where each instance's [Lq, Lk] rows of an attend or additive mask lie: the mask broadcast to
    // the scores [..., Lq, Lk], whose leading extents number the instances.
    struct mask_rows {
        const float* data = nullptr;
        dims_t lead;                       // the scores' leading extents
        std::vector<std::size_t> strides;  // the mask's, per extent of the scores
        kernels::strided_rows<const float> at(std::size_t instance) const {
            if (!data) return {nullptr, 0};
            std::size_t offset = 0;
            for (std::size_t d = lead.size(); d-- > 0;) {
                offset += instance % lead[d] * strides[d];
                instance /= lead[d];
            }
            return {data + offset, strides[lead.size()]};
        }
    };

    template <operand_role R>
    static mask_rows rows_of(const launch_args& args, bool batch_first) {
        if constexpr (!has_operand_role<A, R>) {
            return {};
        } else {
            dims_t scores = dims_of<shape_of_t<A>>(args.extents);
            scores.back() = lk(args.extents);
            const std::vector<std::size_t> strides =
                broadcast_strides(dims_of<shape_of_t<operand_t<A, R>>>(args.extents), scores, batch_first);
            return {args.read(read_name(R)), dims_t(scores.begin(), scores.end() - 2), strides};
        }
    }

    template <operand_role R>
    static head_view<const float> heads(const launch_args& a) {
        return heads_of<operand_t<A, R>>(a.read(read_name(R)), a.extents);
    }

    // Whether a packed mixed-length batch can run it: queries and keys of one length, per sequence,
    // masked causally or by a per-sequence key padding [B, L] (packed as the tokens are).
    static constexpr bool batched_key_padding = [] {
        if constexpr (key_padding) return shape_of_t<operand_t<A, operand_role::key_padding>>::batched;
        else return true;
    }();
    static constexpr bool mixed_lengths = batched_key_padding && !op_t<A>::masks.attend && !op_t<A>::masks.additive &&
                                          last(extents_of<A>, 1) == last(extents_of<K>, 1);

    // f(instance, row, first, end, scratch, args) over the `instances` (sequence, head) pairs and
    // enough chunks of query rows [first, end) for the threads; chunks are whole blocks of kQueryRows
    // rows, so the split never changes a row's arithmetic. Each thread works in its own scratch. In a
    // packed mixed-length batch (extents.ragged), the instances are the heads of each sequence in
    // turn, at its own length; its rows start at `row` of the instance's matrices (0 otherwise). A
    // decoded sequence past its first position attended over the KV cache instead (append_to_cache).
    template <class F>
    static void over_query_rows(const step& s, const launch_args& a, std::size_t instances, F f) {
        if (instances == 0) return;
        const A& attention = node(*static_cast<const E*>(s.node));
        const auto& op = op_of(attention);
        const float scale = static_cast<float>(op.scale);
        const float* padding = nullptr;
        if constexpr (key_padding) padding = a.read("key_padding");
        const mask_rows attend = rows_of<operand_role::attend>(a, op.attend_batch_first);
        const mask_rows additive = rows_of<operand_role::additive>(a, op.additive_batch_first);
        std::size_t per_sequence = instances;  // instances that share one sequence's mask row
        if constexpr (key_padding)
            if (shape_of_t<operand_t<A, operand_role::key_padding>>::batched) per_sequence = instances / a.extents.batch;
        const ragged_batch* ragged = a.extents.ragged;
        const std::size_t sequences = ragged ? ragged->sequences() : 1;
        const std::size_t q_len = lq(a.extents), k_len = lk(a.extents), longest = ragged ? ragged->longest() : q_len;
        const std::size_t wanted = a.threads > 1 ? 2 * static_cast<std::size_t>(a.threads) : 1;
        const std::size_t row_blocks = kernels::divide_up(longest, kt::kQueryRows);
        const std::size_t chunks = std::min(row_blocks, kernels::divide_up(wanted, sequences * instances));
        const std::size_t chunk_rows = kernels::divide_up(row_blocks, chunks) * kt::kQueryRows;
        parallel_for(sequences * instances * chunks, a.threads, [&](std::size_t item, int thread) {
            const std::size_t seq = item / (instances * chunks), i = item / chunks % instances;
            const std::size_t first = item % chunks * chunk_rows, queries = ragged ? ragged->length(seq) : q_len;
            if (first >= queries || (ragged && ragged->starts[seq] > 0)) return;
            const float* keys = !padding ? nullptr : ragged ? padding + ragged->offsets[seq] : padding + i / per_sequence * k_len;
            const kernels::attention_args args{scale, keys, attend.at(i), additive.at(i), window};
            scratch_type scratch(a.scratch[thread], queries, ragged ? queries : k_len);
            f(i, ragged ? ragged->offsets[seq] : 0, first, std::min(queries, first + chunk_rows), scratch, args);
        });
    }
};

// A fused attention, or merge_heads of one (written straight into [..., L, H·D]).
template <class E>
    requires is_attention<E> || (merged_heads<E> && is_attention<child_t<E, 0>>)
struct attention_step : attention_common<E, last(extents_of<heads_node_t<E>>)> {
    static constexpr bool merged = merged_heads<E>;
    using base = attention_common<E, last(extents_of<heads_node_t<E>>)>;
    using typename base::A;
    using typename base::K;
    static constexpr std::size_t dk = base::dk, dv = last(extents_of<A>);
    static constexpr causality causal = op_t<A>::causal_kind;
    static constexpr int query_length = last(extents_of<A>, 1), key_length = last(extents_of<K>, 1);
    static constexpr bool masked = op_t<A>::masks.attend || op_t<A>::masks.additive;
    // Decoding: causal self-attention over a run-time length is cached; attention over another
    // sequence decodes query by query, unless a mask of [Lq, Lk] ties it to the run's rows.
    static constexpr bool cached = query_length == key_length && is_length(query_length) && causal != causality::none &&
                                   !masked && !base::key_padding;
    static constexpr bool decodes = cached || (query_length != key_length && !masked);
    using head_cache = kt::cached_head<dk, dv>;

    static std::string kernel() { return merged ? "fused_attention (heads merged)" : "fused_attention"; }

    // The queries see past + their own keys in a decoding run past its prompt.
    static double flops(const extent_values& at) {
        const std::size_t lq = base::lq(at);
        const double instances = double(elements<shape_of_t<A>>(at)) / double(lq * dv);
        const double pairs = cached && at.position ? double(cached_pairs(lq, at.position, base::window))
                                                   : double(visible_pairs<causal>(lq, base::lk(at), base::window));
        return instances * 2.0 * pairs * (dk + dv);
    }

    static std::size_t scratch_bytes() {
        const std::size_t flash = base::scratch_bytes();
        return cached ? std::max(flash, head_cache::stride(base::lk({})) * sizeof(float)) : flash;
    }
    static std::size_t heads_per_sequence() {
        extent_values one{1};
        one.lengths.fill(1);
        return elements<shape_of_t<A>>(one) / dv;
    }
    // The query heads that share one cached head: a GQA's group, whose keys and values the cache holds
    // once (expand_heads repeats them only in the view); else 1 (one query head per cached head, as
    // where K and V are grouped differently).
    static constexpr std::size_t group = [] {
        if constexpr (rank_of<A> < 4) {
            return std::size_t{1};
        } else {
            constexpr std::size_t heads = static_cast<std::size_t>(last(extents_of<A>, 2));
            constexpr std::size_t keys = stored_heads<K>(), values = stored_heads<operand_t<A, operand_role::value>>();
            return keys == values && heads % keys == 0 ? heads / keys : 1;
        }
    }();
    static std::size_t cache_floats(std::size_t capacity) {
        return heads_per_sequence() / group * head_cache::floats(capacity);
    }
    // What the query heads of a sequence read from memory: each group's keys and values once (in a
    // sliding window, its last `window` positions').
    static std::size_t cache_floats_read(std::size_t visible) {
        return heads_per_sequence() / group * head_cache::floats_read(base::window ? std::min(visible, base::window) : visible);
    }

    static void launch(const step& s, const launch_args& a) {
        if constexpr (cached)
            if (a.cache.data && append_to_cache(s, a)) return;
        const std::size_t instances = elements<shape_of_t<A>>(a.extents) / (base::lq(a.extents) * dv);
        const head_view<const float> q = base::template heads<operand_role::query>(a);
        const head_view<const float> k = base::template heads<operand_role::key>(a);
        const head_view<const float> v = base::template heads<operand_role::value>(a);
        const head_view<float> out = heads_written<A, merged>(a.out, a.extents);
        base::over_query_rows(s, a, instances, [&](std::size_t i, std::size_t row, std::size_t first, std::size_t end,
                                                   typename base::scratch_type& scratch, const kernels::attention_args& args) {
            kt::attend_rows<dk, dv, causal>(q.at(i).from(row), k.at(i).from(row), v.at(i).from(row), first, end,
                                            out.at(i).from(row), args, scratch);
        });
    }

    // A decoding run's new keys and values, appended to each sequence's cache at its position, once
    // per group of query heads; past its first position, a sequence's queries over the cache (true:
    // every sequence done), its first tokens as the full forward (false: not yet). Packed
    // (extents.ragged), each sequence is in its own slot of the cache, at its own position.
    static bool append_to_cache(const step& s, const launch_args& a) {
        const ragged_batch* ragged = a.extents.ragged;
        const std::size_t heads = heads_per_sequence(), kept = heads / group, capacity = a.cache.capacity;
        const std::size_t sequences = ragged ? ragged->sequences() : a.extents.batch;
        const head_view<const float> q = base::template heads<operand_role::query>(a);
        const head_view<const float> k = base::template heads<operand_role::key>(a);
        const head_view<const float> v = base::template heads<operand_role::value>(a);
        const head_view<float> out = heads_written<A, merged>(a.out, a.extents);
        const float scale = static_cast<float>(op_of(base::node(*static_cast<const E*>(s.node))).scale);
        struct rows {
            std::size_t instance, first, count, past;  // head h of sequence b: its instance, rows, position
            head_cache cache;                          // its group's
        };
        const auto rows_of = [&](std::size_t b, std::size_t h) {
            const std::size_t slot = ragged ? ragged->slots[b] : b;
            return rows{ragged ? h : b * heads + h, ragged ? ragged->offsets[b] : 0,
                        ragged ? ragged->length(b) : base::lq(a.extents), ragged ? ragged->starts[b] : a.extents.position,
                        head_cache(a.cache.data + (slot * kept + h / group) * head_cache::floats(capacity), capacity)};
        };
        parallel_for(sequences * kept, a.threads, [&](std::size_t item, int) {
            const rows r = rows_of(item / kept, item % kept * group);
            r.cache.append(k.at(r.instance).from(r.first), v.at(r.instance).from(r.first), r.past, r.count);
        });
        bool past_every_first = true;
        for (std::size_t b = 0; b < sequences; ++b) past_every_first &= rows_of(b, 0).past > 0;
        parallel_for(sequences * heads, a.threads, [&](std::size_t item, int thread) {
            const rows r = rows_of(item / heads, item % heads);
            if (r.past > 0)
                kt::attend_cache(q.at(r.instance).from(r.first), r.count, r.past, r.cache, scale, out.at(r.instance).from(r.first),
                                 reinterpret_cast<float*>(a.scratch[thread]), base::window);
        });
        return past_every_first;
    }
};

template <class E>
    requires is_probabilities<E>
struct probabilities_step : attention_common<E, 0> {
    using base = attention_common<E, 0>;
    static constexpr std::size_t dk = base::dk;
    static constexpr causality causal = op_t<E>::causal_kind;
    static constexpr bool mixed_lengths = false;  // it writes whole [Lq, Lk] matrices

    static std::string kernel() { return "attention_probabilities"; }

    static double flops(const extent_values& at) {
        const std::size_t lq = base::lq(at), lk = base::lk(at);
        const double instances = double(elements<shape_of_t<E>>(at)) / double(lq * lk);
        return instances * 2.0 * double(visible_pairs<causal>(lq, lk, base::window) * dk);
    }

    static void launch(const step& s, const launch_args& a) {
        const std::size_t lq = base::lq(a.extents), lk = base::lk(a.extents);
        const std::size_t instances = elements<shape_of_t<E>>(a.extents) / (lq * lk);
        const head_view<const float> q = base::template heads<operand_role::query>(a);
        const head_view<const float> k = base::template heads<operand_role::key>(a);
        const head_view<float> out{a.out, 1, 1, instances, lq * lk, 0, lk};
        base::over_query_rows(s, a, instances, [&](std::size_t i, std::size_t, std::size_t first, std::size_t end,
                                                   typename base::scratch_type& scratch, const kernels::attention_args& args) {
            kt::probability_rows<dk, causal>(q.at(i), k.at(i), first, end, out.at(i), args, scratch);
        });
    }
};

}  // namespace ctformer::plan::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_PLAN_STEPS_ATTENTION_INL_H_ toggle
