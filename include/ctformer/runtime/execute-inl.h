// Running a fused graph: each step of plan/lowering.hpp calls its kernel, on `threads` threads.
// Per-target code, like the kernels (include once per Highway target, or once for the static one).
//
// Values live in the workspace, one buffer per bound intermediate and per unbound step result,
// handed out in execution order. The steps that read heads (attention, attention probabilities, a
// batched matmul) read them through head_view (no copies) and, under merge_heads, write the merged
// layout directly.
// Toggling include guard: this file is included once per target.
#if defined(CTFORMER_RUNTIME_EXECUTE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef CTFORMER_RUNTIME_EXECUTE_INL_H_
#undef CTFORMER_RUNTIME_EXECUTE_INL_H_
#else
#define CTFORMER_RUNTIME_EXECUTE_INL_H_
#endif

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include <hwy/highway.h>

#include "../kernels/attention-inl.h"
#include "../kernels/gemm-inl.h"
#include "../kernels/matmul-inl.h"
#include "../kernels/rows-inl.h"
#include "../plan/lowering.hpp"
#include "../reference/evaluate.hpp"
#include "parallel.hpp"
#include "weights.hpp"
#include "workspace.hpp"

HWY_BEFORE_NAMESPACE();
namespace ctformer::runtime::HWY_NAMESPACE {
namespace kt = ctformer::kernels::HWY_NAMESPACE;
using plan::elements;

// Where the matrices of attention instance i (i = outer · heads + head) start, and their row stride.
// Group g of GQA serves heads g·repeat .. g·repeat + repeat - 1; outer indices wrap for broadcasting.
template <class T>
struct head_view {
    T* data;
    std::size_t heads = 1, repeat = 1, outer_count = 1, outer_stride = 0, head_stride = 0, row_stride = 0;

    kernels::strided_rows<T> at(std::size_t instance) const {
        const std::size_t outer = instance / heads % outer_count, head = instance % heads / repeat;
        return {data + outer * outer_stride + head * head_stride, row_stride};
    }
};

// Contiguous [count, L, D] matrices.
template <class T>
head_view<T> contiguous(T* data, std::size_t count, std::size_t rows, std::size_t cols) {
    return {data, 1, 1, count, rows * cols, 0, cols};
}

// The packed GEMM panels depend on the target's vector width, so they are kept per target.
using packed_weights = std::map<std::string, kt::packed_weight, std::less<>>;

class executor {
public:
    executor(const weight_store& weights, const packed_weights& packed, const tensor_map& inputs, workspace& ws,
             std::size_t batch_size, int threads)
        : weights_(weights), packed_(packed), inputs_(inputs), ws_(ws), batch_(batch_size), threads_(threads) {}

    template <class Binding>
    void compute_binding(const Binding& b, float* out) {
        compute(b.definition, out);
        bound_.push_back({Binding::name.view(), out, &dims_of<shape_of_t<decltype(b.definition)>>});
    }

    // A bound intermediate of this run (e.g. "attn_weights"), copied out.
    void copy_bound(std::string_view name, host_tensor<float>& into) const {
        for (const bound_value& b : bound_)
            if (b.name == name) {
                const dims_t dims = b.dims_of(batch_);
                into = host_tensor<float>(dims, std::vector<float>(b.data, b.data + element_count(dims)));
                return;
            }
        throw missing_tensor(std::string(name), "(a bound intermediate of the graph)");
    }

    // A buffer for the value of a binding, or of a step's operand.
    template <class Shape>
    float* buffer() {
        return ws_.floats(next_buffer_++, elements<Shape>(batch_));
    }

    // E's value written to out.
    template <expression E>
    void compute(const E& e, float* out) {
        if constexpr (is_leaf<E>) {
            std::copy_n(value_of(e), elements<shape_of_t<E>>(batch_), out);
        } else if constexpr (is_gemm<E>) {
            gemm(e, out);
        } else if constexpr (plan::head_reader<E>) {
            constexpr std::size_t rows = last(extents_of<E>, 1), cols = last(extents_of<E>);
            write_heads(e, contiguous(out, elements<shape_of_t<E>>(batch_) / (rows * cols), rows, cols));
        } else if constexpr (plan::merged_heads<E>) {
            write_heads(child<0>(e), merged(out, child<0>(e)));
        } else if constexpr (is_op<E, residual_layer_norm_op>) {
            layer_norm(e, value_of(child<0>(e)), value_of(child<1>(e)), child<2>(e), child<3>(e), out);
        } else if constexpr (is_op<E, layer_norm_op>) {
            layer_norm(e, value_of(child<0>(e)), nullptr, child<1>(e), child<2>(e), out);
        } else if constexpr (is_op<E, softmax_op>) {
            softmax(e, out);
        } else if constexpr (is_op<E, add_op>) {
            add(e, out);
        } else {
            by_reference(e, out);
        }
    }

private:
    // ---- operands ---------------------------------------------------------------------------------
    template <expression E>
    const float* value_of(const E& e) {
        if constexpr (is_leaf<E>) {
            return leaf_value(e.elements[hana::size_c<0>]);
        } else {
            float* out = buffer<shape_of_t<E>>();
            compute(e, out);
            return out;
        }
    }

    template <fixed_string Name, class Shape, role Role, dtype Dtype>
    const float* leaf_value(const tensor<Name, Shape, Role, Dtype>&) {
        if constexpr (Role == role::weight) return weights_.plain(Name.view());
        else return inputs_.find(Name.view())->second.data.data();  // checked before the run
    }

    template <fixed_string Name, class Shape, dtype Dtype>
    const float* leaf_value(const bound<Name, Shape, Dtype>&) {
        for (const bound_value& b : bound_)
            if (b.name == Name.view()) return b.data;
        throw error(std::string("ctformer: internal error, please report: ") + std::string(Name.view()) +
                    " used before it was computed");
    }

    template <class Table, class Shape>
    const float* leaf_value(const constant<Table, Shape>&) {
        return weights_.constant<Table, Shape>();
    }

    // ---- gemm ---------------------------------------------------------------------------------------
    template <class E>
    void gemm(const E& e, float* out) {
        using W = child_t<E, 1>;
        constexpr std::size_t n = extents_of<W>[0], k = last(extents_of<W>);
        const float* a = value_of(child<0>(e));
        const std::size_t rows = elements<shape_of_t<E>>(batch_) / n;
        kernels::epilogue_args args;
        if constexpr (epilogue_of<E>::residual) {
            using R = child_t<E, arity<E> - 1>;
            args.residual = value_of(child<arity<E> - 1>(e));
            if constexpr (is_constant<R>) args.residual_rows = extents_of<R>[0];
        }
        const kt::packed_weight& w = packed_.find(gemm_key<E>())->second;
        // Tiles of whole micro-kernel rows: the split never changes a row's arithmetic.
        const std::size_t row_tiles = (rows + kt::kRows - 1) / kt::kRows;
        const std::size_t wanted = threads_ > 1 ? 4 * static_cast<std::size_t>(threads_) : 1;
        const std::size_t row_blocks = std::min(row_tiles, wanted);
        const std::size_t panel_blocks = std::min(w.panels, (wanted + row_blocks - 1) / row_blocks);
        const std::size_t tiles_per_block = (row_tiles + row_blocks - 1) / row_blocks;
        const std::size_t panels_per_block = (w.panels + panel_blocks - 1) / panel_blocks;
        parallel_for(row_blocks * panel_blocks, threads_, [&](std::size_t item, int) {
            const std::size_t r = item / panel_blocks, p = item % panel_blocks;
            const std::size_t row_begin = std::min(rows, r * tiles_per_block * kt::kRows);
            const std::size_t row_end = std::min(rows, row_begin + tiles_per_block * kt::kRows);
            const std::size_t panel_begin = std::min(w.panels, p * panels_per_block);
            const std::size_t panel_end = std::min(w.panels, panel_begin + panels_per_block);
            kt::gemm_block<n, k, epilogue_of<E>>(a, w, out, args, row_begin, row_end, panel_begin, panel_end);
        });
    }

    // ---- attention ----------------------------------------------------------------------------------
    // The heads of an attention operand: split_heads(x or columns(x)), maybe under expand_heads, is
    // read in place; anything else is computed into a buffer first.
    template <expression E>
    head_view<const float> heads_of(const E& e) {
        constexpr std::size_t len = last(extents_of<E>, 1), width = last(extents_of<E>);
        if constexpr (plan::expanded_split<E>) {
            head_view<const float> view = heads_of(child<0>(e));
            constexpr std::size_t heads = last(extents_of<E>, 2);
            view.repeat = heads / view.heads;
            view.heads = heads;
            return view;
        } else if constexpr (is_op<E, split_heads_op>) {
            using X = child_t<E, 0>;
            constexpr std::size_t heads = last(extents_of<E>, 2);
            const std::size_t outer = elements<shape_of_t<E>>(batch_) / (heads * len * width);
            const float* data;
            std::size_t stride;
            if constexpr (is_columns<X>) {
                data = value_of(child<0>(child<0>(e))) + op_t<X>::begin;
                stride = last(extents_of<child_t<X, 0>>);
            } else {
                data = value_of(child<0>(e));
                stride = heads * width;
            }
            return {data, heads, 1, outer, len * stride, width, stride};
        } else {
            return contiguous(value_of(e), elements<shape_of_t<E>>(batch_) / (len * width), len, width);
        }
    }

    // The output of attention node A written as merge_heads would lay it out: [..., L, heads · D].
    template <class A>
    head_view<float> merged(float* out, const A&) {
        constexpr std::size_t heads = last(extents_of<A>, 2), len = last(extents_of<A>, 1), d = last(extents_of<A>);
        const std::size_t outer = elements<shape_of_t<A>>(batch_) / (heads * len * d);
        return {out, heads, 1, outer, len * heads * d, d, heads * d};
    }

    template <class E>
    void write_heads(const E& e, head_view<float> out) {
        if constexpr (is_attention<E>) attention(e, out);
        else if constexpr (is_probabilities<E>) probabilities(e, out);
        else batched_matmul(e, out);
    }

    // The key-padding mask of attention node E as bytes, and how many instances share a sequence's row.
    template <class E>
    std::pair<const std::uint8_t*, std::size_t> key_attend(const E& e, std::size_t instances) {
        if constexpr (!op_t<E>::key_padding) {
            return {nullptr, instances};
        } else {
            using Padding = child_t<E, arity<E> - 1>;
            const std::size_t count = elements<shape_of_t<Padding>>(batch_);
            const float* mask = value_of(child<arity<E> - 1>(e));
            auto& bytes = mine(ws_.per_thread<std::vector<std::uint8_t>>(next_object_++, 1), 0);
            bytes.resize(count);
            for (std::size_t i = 0; i < count; ++i) bytes[i] = mask[i] != 0.0f;
            return {bytes.data(), shape_of_t<Padding>::batched ? instances / batch_ : instances};
        }
    }

    // f(instance, first row, end row, thread) over every instance and enough chunks of query rows for
    // the threads; chunks are whole kQueryRows blocks, so the split never changes a row's arithmetic.
    template <std::size_t Lq, class F>
    void for_query_chunks(std::size_t instances, F f) {
        const std::size_t wanted = threads_ > 1 ? 2 * static_cast<std::size_t>(threads_) : 1;
        const std::size_t row_blocks = (Lq + kt::kQueryRows - 1) / kt::kQueryRows;
        const std::size_t chunks = std::min(row_blocks, (wanted + instances - 1) / instances);
        const std::size_t chunk_rows = (row_blocks + chunks - 1) / chunks * kt::kQueryRows;
        parallel_for(instances * chunks, threads_, [&](std::size_t item, int thread) {
            const std::size_t instance = item / chunks, first = item % chunks * chunk_rows;
            f(instance, first, std::min(Lq, first + chunk_rows), thread);
        });
    }

    // f(instance, first row, end row, scratch, args) for attention node E: over its instances and
    // chunks of query rows, each thread with its own Scratch, args with E's scale and key mask.
    template <class Scratch, std::size_t Lq, std::size_t Lk, class E, class F>
    void over_query_rows(const E& e, std::size_t instances, F f) {
        const auto [attend, per_sequence] = key_attend(e, instances);
        auto& scratch = ws_.per_thread<Scratch>(next_object_++, threads_);
        const float scale = static_cast<float>(op_of(e).scale);
        for_query_chunks<Lq>(instances, [&](std::size_t i, std::size_t first, std::size_t end, int thread) {
            const kernels::attention_args args{scale, attend ? attend + i / per_sequence * Lk : nullptr};
            f(i, first, end, mine(scratch, thread), args);
        });
    }

    template <class E>
    void attention(const E& e, head_view<float> out) {
        using K = child_t<E, 1>;
        constexpr std::size_t lq = last(extents_of<E>, 1), dv = last(extents_of<E>);
        constexpr std::size_t lk = last(extents_of<K>, 1), dk = last(extents_of<K>);
        using scratch_type = kt::attention_scratch<lq, lk, dk, dv>;
        const std::size_t instances = elements<shape_of_t<E>>(batch_) / (lq * dv);
        const head_view<const float> q = heads_of(child<0>(e)), k = heads_of(child<1>(e)), v = heads_of(child<2>(e));
        over_query_rows<scratch_type, lq, lk>(e, instances, [&](std::size_t i, std::size_t first, std::size_t end,
                                                                scratch_type& s, const kernels::attention_args& args) {
            kt::attend_rows<lq, lk, dk, dv, op_t<E>::causal_kind>(q.at(i), k.at(i), v.at(i), first, end, out.at(i),
                                                                  args, s);
        });
    }

    template <class E>
    void probabilities(const E& e, head_view<float> out) {
        constexpr std::size_t lq = last(extents_of<E>, 1), lk = last(extents_of<E>), dk = last(extents_of<child_t<E, 1>>);
        using scratch_type = kt::attention_scratch<lq, lk, dk, 0>;
        const std::size_t instances = elements<shape_of_t<E>>(batch_) / (lq * lk);
        const head_view<const float> q = heads_of(child<0>(e)), k = heads_of(child<1>(e));
        over_query_rows<scratch_type, lq, lk>(e, instances, [&](std::size_t i, std::size_t first, std::size_t end,
                                                                scratch_type& s, const kernels::attention_args& args) {
            kt::probability_rows<lq, lk, dk, op_t<E>::causal_kind>(q.at(i), k.at(i), first, end, out.at(i), args, s);
        });
    }

    template <class E>
    void batched_matmul(const E& e, head_view<float> out) {
        constexpr std::size_t m = last(extents_of<E>, 1), n = last(extents_of<E>), k = last(extents_of<child_t<E, 0>>);
        const std::size_t instances = elements<shape_of_t<E>>(batch_) / (m * n);
        const head_view<const float> a = heads_of(child<0>(e)), b = heads_of(child<1>(e));
        parallel_for(instances, threads_, [&](std::size_t i, int) { kt::matmul<m, k, n>(a.at(i), b.at(i), out.at(i)); });
    }

    // ---- rows ---------------------------------------------------------------------------------------
    // f(first, count) over blocks of rows, on the threads.
    template <class F>
    void for_row_blocks(std::size_t rows, F f) {
        const std::size_t blocks = std::min<std::size_t>(rows, threads_ > 1 ? 4 * threads_ : 1);
        const std::size_t per_block = (rows + blocks - 1) / blocks;
        parallel_for(blocks, threads_, [&](std::size_t block, int) {
            const std::size_t first = std::min(rows, block * per_block);
            f(first, std::min(rows, first + per_block) - first);
        });
    }

    template <class E, class Gamma, class Beta>
    void layer_norm(const E& e, const float* x, const float* residual, const Gamma& gamma, const Beta& beta,
                    float* out) {
        constexpr std::size_t n = last(extents_of<E>);
        const float* g = value_of(gamma);
        const float* b = value_of(beta);
        const float eps = static_cast<float>(op_of(e).eps);
        for_row_blocks(elements<shape_of_t<E>>(batch_) / n, [&](std::size_t first, std::size_t count) {
            kt::residual_layer_norm<n>(count, x + first * n, residual ? residual + first * n : nullptr, g, b, eps,
                                       out + first * n);
        });
    }

    template <class E>
    void softmax(const E& e, float* out) {
        constexpr std::size_t n = last(extents_of<E>);
        const float* x = value_of(child<0>(e));
        for_row_blocks(elements<shape_of_t<E>>(batch_) / n, [&](std::size_t first, std::size_t count) {
            kt::softmax<n>(count, x + first * n, out + first * n);
        });
    }

    // a + b, the smaller operand repeated (its extents are the trailing extents of the result).
    template <class E>
    void add(const E& e, float* out) {
        const float* a = value_of(child<0>(e));
        const float* b = value_of(child<1>(e));
        const std::size_t na = elements<shape_of_t<child_t<E, 0>>>(batch_);
        const std::size_t nb = elements<shape_of_t<child_t<E, 1>>>(batch_);
        const std::size_t n = elements<shape_of_t<E>>(batch_), period = std::min(na, nb);
        for (std::size_t base = 0; base < n; base += period) {
            const float* x = a + base % na;
            const float* y = b + base % nb;
            for (std::size_t j = 0; j < period; ++j) out[base + j] = x[j] + y[j];
        }
    }

    // ---- what no pass fused -------------------------------------------------------------------------
    template <class Shape>
    reference::value widened(const float* data) {
        reference::value v(dims_of<Shape>(batch_));
        std::copy_n(data, v.size(), v.data.begin());
        return v;
    }

    // The reference formula in double precision, for correctness where no kernel exists.
    template <class E>
    void by_reference(const E& e, float* out) {
        const auto values = hana::unpack(hana::drop_front(e.elements), [&](const auto&... c) {
            return std::tuple{widened<shape_of_t<std::decay_t<decltype(c)>>>(value_of(c))...};
        });
        const reference::value y = std::apply(
            [&](const auto&... v) { return reference::apply(op_of(e), dims_of<shape_of_t<E>>(batch_), v...); }, values);
        std::copy(y.data.begin(), y.data.end(), out);
    }

    const weight_store& weights_;
    const packed_weights& packed_;
    const tensor_map& inputs_;
    workspace& ws_;
    std::size_t batch_;
    int threads_;
    std::size_t next_buffer_ = 0, next_object_ = 0;
    struct bound_value {
        std::string_view name;
        const float* data;
        dims_t (*dims_of)(std::size_t batch_size);  // its shape, derived only when it is copied out
    };
    std::vector<bound_value> bound_;
};

}  // namespace ctformer::runtime::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // CTFORMER_RUNTIME_EXECUTE_INL_H_ toggle
