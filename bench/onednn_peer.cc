// The oneDNN peer (Debian's libdnnl, 2.x, OpenMP threads), written the way a competent user would:
// matmul primitives with the weights in the layout each chose (format_tag::any, reordered once),
// bias and post-ops (relu; the residual as a binary add), the attention as batched matmuls over
// strided views of the packed Q|K|V (scale as an output scale, the causal mask as a binary add), a
// softmax primitive, and layer_normalization primitives. Primitives are made once; a run only
// executes them. In bf16 (enc_bf16) every activation and weight is bf16, as oneDNN's bf16 inference
// keeps them: matmuls accumulate in fp32, softmax and layer normalisation compute in fp32; biases,
// the scale and the shift stay fp32.
#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "workloads.hpp"

namespace {

using dnnl::memory;
using dims = memory::dims;
using tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;
constexpr auto bf16 = memory::data_type::bf16;

struct step {
    dnnl::primitive primitive;
    std::unordered_map<int, memory> args;
};

// One MHA (encoder = false) or post-LN encoder layer: h = LN(x + MHA(x)); y = LN(h + FFN(h)).
class layer {
public:
    layer(const bench::workload& w, unsigned seed, const dnnl::engine& engine, bool encoder, const memory* input,
          memory::data_type type)
        : w_(w), engine_(engine), type_(type) {
        const memory::dim m = dim(w.batch) * w.length, d = w.d_model;
        x_ = input ? *input : buffer({m, d}, bench::random_values(std::size_t(m * d), 1.0f, 9));
        qkv_ = buffer({m, 3 * d});
        heads_ = buffer({m, d});
        scores_ = buffer({dim(w.batch), dim(w.heads), dim(w.length), dim(w.length)});
        linear(x_, qkv_, 3 * d, seed, {});
        attention();
        if (!encoder) {
            output_ = buffer({m, d});
            linear(heads_, output_, d, seed + 2, {});
            return;
        }
        const memory h = buffer({m, d}), hidden = buffer({m, dim(w.d_ff)});
        output_ = buffer({m, d});
        linear(heads_, h, d, seed + 2, {.residual = &x_});  // x + MHA(x)
        layer_norm(h);
        linear(h, hidden, w.d_ff, seed + 4, {.relu = true});
        linear(hidden, output_, d, seed + 6, {.residual = &h});  // h + FFN(h)
        layer_norm(output_);
    }

    void run(dnnl::stream& s) {
        for (step& st : steps_) st.primitive.execute(s, st.args);
    }
    const memory& output() const { return output_; }

private:
    static memory::dim dim(int v) { return memory::dim(v); }

    // An activation of the layer's type (or `type`), given `values` (converted by a reorder).
    memory buffer(const dims& shape, const std::vector<float>& values = {}, memory::data_type type = memory::data_type::undef) {
        const tag layout = shape.size() == 1 ? tag::a : shape.size() == 2 ? tag::ab : tag::abcd;
        memory mem({shape, type == memory::data_type::undef ? type_ : type, layout}, engine_);
        if (values.empty()) return mem;
        memory plain({shape, f32, layout}, engine_);
        std::copy(values.begin(), values.end(), static_cast<float*>(plain.get_data_handle()));
        if (mem.get_desc() == plain.get_desc()) return plain;
        dnnl::stream s(engine_);
        dnnl::reorder(plain, mem).execute(s, plain, mem);
        s.wait();
        return mem;
    }

    struct epilogue {
        bool relu = false;
        const memory* residual = nullptr;
    };

    // out = in·Wᵀ + b (then relu, or + residual). W [n, k] row-major (a "ba" layout of [k, n]) is
    // reordered, once, into the layout the matmul chose for it (format_tag::any: blocked for its
    // micro-kernel on AVX-512), as oneDNN's guide for inference says.
    void linear(const memory& in, const memory& out, memory::dim n, unsigned seed, epilogue e) {
        const memory::dim k = in.get_desc().dims()[1];
        memory plain({{k, n}, f32, tag::ba}, engine_);
        const auto wv = bench::random_values(std::size_t(n * k), 1.0f / std::sqrt(float(k)), seed);
        std::copy(wv.begin(), wv.end(), static_cast<float*>(plain.get_data_handle()));
        memory bias = buffer({1, n}, bench::random_values(std::size_t(n), 0.1f, seed + 1), f32);
        dnnl::post_ops ops;
        if (e.relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        if (e.residual) ops.append_binary(dnnl::algorithm::binary_add, e.residual->get_desc());
        dnnl::primitive_attr attr;
        attr.set_post_ops(ops);
        const memory::desc any({k, n}, type_, tag::any);
        const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(in.get_desc(), any, bias.get_desc(), out.get_desc()),
                                              attr, engine_);
        memory weights = plain;
        if (pd.weights_desc() != plain.get_desc()) {
            weights = memory(pd.weights_desc(), engine_);
            dnnl::stream s(engine_);
            dnnl::reorder(plain, weights).execute(s, plain, weights);
            s.wait();
        }
        step st{dnnl::matmul(pd), {{DNNL_ARG_SRC, in}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, out}}};
        if (e.residual) st.args.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, *e.residual});
        steps_.push_back(std::move(st));
        weights_.push_back(weights);
    }

    // Q, K or V of every (batch, head) as a [B, h, L, d_head] view of the packed projections.
    memory head_view(int part, bool transposed) {
        const memory::dim b = w_.batch, h = w_.heads, l = w_.length, d = w_.d_model, dh = d / h;
        const dims shape = transposed ? dims{b, h, dh, l} : dims{b, h, l, dh};
        const dims strides = transposed ? dims{l * 3 * d, dh, 1, 3 * d} : dims{l * 3 * d, dh, 3 * d, 1};
        return memory({shape, type_, strides}, engine_, at(qkv_, part * d));
    }

    void attention() {
        const memory::dim b = w_.batch, h = w_.heads, l = w_.length, d = w_.d_model, dh = d / h;
        const memory q = head_view(0, false), kt = head_view(1, true), v = head_view(2, false);
        dnnl::primitive_attr score_attr;
        score_attr.set_output_scales(0, {1.0f / std::sqrt(float(dh))});
        step scores{{}, {{DNNL_ARG_SRC, q}, {DNNL_ARG_WEIGHTS, kt}, {DNNL_ARG_DST, scores_}}};
        if (w_.causal) {
            memory mask = buffer({1, 1, l, l}, {}, f32);
            float* m = static_cast<float*>(mask.get_data_handle());
            for (memory::dim i = 0; i < l; ++i)
                for (memory::dim j = 0; j < l; ++j) m[i * l + j] = j > i ? -std::numeric_limits<float>::infinity() : 0.0f;
            dnnl::post_ops ops;
            ops.append_binary(dnnl::algorithm::binary_add, mask.get_desc());
            score_attr.set_post_ops(ops);
            scores.args.insert({DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, mask});
        }
        scores.primitive = dnnl::matmul(dnnl::matmul::primitive_desc(
            dnnl::matmul::desc(q.get_desc(), kt.get_desc(), scores_.get_desc()), score_attr, engine_));
        steps_.push_back(std::move(scores));

        const dnnl::softmax_forward::primitive_desc softmax(
            dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, scores_.get_desc(), 3), engine_);
        steps_.push_back({dnnl::softmax_forward(softmax), {{DNNL_ARG_SRC, scores_}, {DNNL_ARG_DST, scores_}}});

        // P·V straight into the merged-heads layout [B, L, h·d_head].
        const memory merged({{b, h, l, dh}, type_, dims{l * d, dh, d, 1}}, engine_, heads_.get_data_handle());
        steps_.push_back({dnnl::matmul(dnnl::matmul::primitive_desc(
                              dnnl::matmul::desc(scores_.get_desc(), v.get_desc(), merged.get_desc()), engine_)),
                          {{DNNL_ARG_SRC, scores_}, {DNNL_ARG_WEIGHTS, v}, {DNNL_ARG_DST, merged}}});
    }

    void layer_norm(const memory& x) {
        const memory::dim d = w_.d_model;
        memory scale = buffer({d}, std::vector<float>(std::size_t(d), 1.0f), f32),
               shift = buffer({d}, std::vector<float>(std::size_t(d), 0.0f), f32);
        const dnnl::layer_normalization_forward::primitive_desc pd(
            dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_inference, x.get_desc(), 1e-5f,
                                                    dnnl::normalization_flags::use_scale | dnnl::normalization_flags::use_shift),
            engine_);
        steps_.push_back({dnnl::layer_normalization_forward(pd),
                          {{DNNL_ARG_SRC, x}, {DNNL_ARG_DST, x}, {DNNL_ARG_SCALE, scale}, {DNNL_ARG_SHIFT, shift}}});
    }

    // The element `offset` elements into m.
    void* at(const memory& m, memory::dim offset) const {
        return static_cast<char*>(m.get_data_handle()) + offset * (type_ == bf16 ? 2 : 4);
    }

    bench::workload w_;
    dnnl::engine engine_;
    memory::data_type type_;
    memory x_, qkv_, heads_, scores_, output_;
    std::vector<memory> weights_;
    std::vector<step> steps_;
};

void register_workload(const bench::workload& w, int layers, const char* what, memory::data_type type = f32) {
    bench::register_case("onednn", what, layers ? w.encoder_flops(layers) : w.mha_flops(), w,
                         [w, layers, type](benchmark::State& state, int threads) {
                             omp_set_num_threads(threads);
                             const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
                             dnnl::stream stream(engine);
                             std::vector<std::unique_ptr<layer>> stack;
                             for (int i = 0; i < std::max(layers, 1); ++i)
                                 stack.push_back(std::make_unique<layer>(w, 10 * i + 1, engine, layers > 0,
                                                                         i ? &stack.back()->output() : nullptr, type));
                             for (auto _ : state) {
                                 for (auto& l : stack) l->run(stream);
                                 stream.wait();
                             }
                         });
}

// The instruction set oneDNN's JIT uses here (ONEDNN_MAX_CPU_ISA caps it).
std::string isa_name() {
    switch (dnnl::get_effective_cpu_isa()) {
        case dnnl::cpu_isa::avx2: return "AVX2";
        case dnnl::cpu_isa::avx2_vnni: return "AVX2 VNNI";
        case dnnl::cpu_isa::avx512_core: return "AVX-512";
        case dnnl::cpu_isa::avx512_core_vnni: return "AVX-512 VNNI";
        case dnnl::cpu_isa::avx512_core_bf16: return "AVX-512 BF16";
        case dnnl::cpu_isa::avx512_core_amx: return "AVX-512 AMX";
        default: return "ISA " + std::to_string(static_cast<int>(dnnl::get_effective_cpu_isa()));
    }
}

const bool registered = [] {
    for (const bench::workload* w : {&bench::S1, &bench::S2, &bench::S3, &bench::S4, &bench::S5}) {
        register_workload(*w, 0, "mha");
        register_workload(*w, 1, "enc");
        register_workload(*w, 1, "enc_bf16", bf16);
    }
    register_workload(bench::S1, 6, "enc6");
    register_workload(bench::S2, 6, "enc6");
    const dnnl_version_t* v = dnnl_version();
    benchmark::AddCustomContext("peer onednn", "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) +
                                                   "." + std::to_string(v->patch) + ", " + isa_name());
    return true;
}();

}  // namespace
