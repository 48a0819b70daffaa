// The Eigen 3.4 peer, written the way a competent user would: row-major float matrices, the
// projections as Eigen products (its own blocking, and its OpenMP threads), attention per
// (batch, head) in an OpenMP loop, softmax and LayerNorm as array expressions.
#include <Eigen/Dense>
#include <omp.h>

#include <cmath>
#include <limits>

#include "workloads.hpp"

namespace {

using matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using row = Eigen::RowVectorXf;

struct linear {  // y = x·wᵀ + b
    matrix w;
    row b;
    linear(int out, int in, unsigned seed)
        : w(Eigen::Map<const matrix>(bench::random_values(std::size_t(out) * in, 1.0f / std::sqrt(float(in)), seed).data(),
                                     out, in)),
          b(Eigen::Map<const row>(bench::random_values(std::size_t(out), 0.1f, seed + 1).data(), out)) {}
    void apply(const matrix& x, matrix& y) const {
        y.noalias() = x * w.transpose();
        y.rowwise() += b;
    }
};

void layer_norm(matrix& x) {  // gamma 1, beta 0: the same work as with them
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        auto v = x.row(r).array();
        const float mean = v.mean();
        const float var = (v - mean).square().mean();
        v = (v - mean) / std::sqrt(var + 1e-5f);
    }
}

struct layer {
    bench::workload w;
    linear qkv, out, ff1, ff2;
    matrix projected, heads, attended, hidden;

    layer(const bench::workload& wl, unsigned seed)
        : w(wl), qkv(3 * wl.d_model, wl.d_model, seed), out(wl.d_model, wl.d_model, seed + 2),
          ff1(wl.d_ff, wl.d_model, seed + 4), ff2(wl.d_model, wl.d_ff, seed + 6) {}

    void attention() {
        const int L = w.length, d = w.d_model, dh = d / w.heads;
        const float scale = 1.0f / std::sqrt(float(dh));
        heads.resize(projected.rows(), d);
#pragma omp parallel for collapse(2)
        for (int b = 0; b < w.batch; ++b) {
            for (int h = 0; h < w.heads; ++h) {
                const auto q = projected.block(b * L, h * dh, L, dh);
                const auto k = projected.block(b * L, d + h * dh, L, dh);
                const auto v = projected.block(b * L, 2 * d + h * dh, L, dh);
                matrix s = (q * k.transpose()) * scale;
                if (w.causal) s.triangularView<Eigen::StrictlyUpper>().setConstant(-std::numeric_limits<float>::infinity());
                s = (s.colwise() - s.rowwise().maxCoeff()).array().exp().matrix();
                s.array().colwise() /= s.rowwise().sum().array();
                heads.block(b * L, h * dh, L, dh).noalias() = s * v;
            }
        }
    }

    const matrix& mha(const matrix& x) {
        qkv.apply(x, projected);
        attention();
        out.apply(heads, attended);
        return attended;
    }

    // Post-LN: h = LN(x + MHA(x)); y = LN(h + FFN(h)), written into x.
    void encode(matrix& x) {
        matrix h = x + mha(x);
        layer_norm(h);
        ff1.apply(h, hidden);
        hidden = hidden.cwiseMax(0.0f);
        ff2.apply(hidden, x);
        x += h;
        layer_norm(x);
    }
};

matrix tokens(const bench::workload& w) {
    return Eigen::Map<const matrix>(bench::random_values(std::size_t(w.batch) * w.length * w.d_model, 1.0f, 9).data(),
                                    w.batch * w.length, w.d_model);
}

void set_threads(int threads) {
    Eigen::setNbThreads(threads);
    omp_set_num_threads(threads);
}

void register_workload(const bench::workload& w) {
    bench::register_case("eigen", "mha", w.mha_flops(), w, [w](benchmark::State& state, int threads) {
        set_threads(threads);
        layer l(w, 1);
        const matrix x = tokens(w);
        for (auto _ : state) benchmark::DoNotOptimize(l.mha(x).data());
    });
    bench::register_case("eigen", "enc", w.encoder_flops(), w, [w](benchmark::State& state, int threads) {
        set_threads(threads);
        layer l(w, 1);
        const matrix x = tokens(w);
        for (auto _ : state) {
            matrix y = x;
            l.encode(y);
            benchmark::DoNotOptimize(y.data());
        }
    });
}

void register_encoder_6(const bench::workload& w) {
    bench::register_case("eigen", "enc6", w.encoder_flops(6), w, [w](benchmark::State& state, int threads) {
        set_threads(threads);
        std::vector<layer> layers;
        for (unsigned i = 0; i < 6; ++i) layers.emplace_back(w, 10 * i + 1);
        const matrix x = tokens(w);
        for (auto _ : state) {
            matrix y = x;
            for (layer& l : layers) l.encode(y);
            benchmark::DoNotOptimize(y.data());
        }
    });
}

const bool registered = [] {
    for (const bench::workload* w : {&bench::S1, &bench::S2, &bench::S3, &bench::S4, &bench::S5}) register_workload(*w);
    register_encoder_6(bench::S1);
    register_encoder_6(bench::S2);
    benchmark::AddCustomContext("peer eigen", "Eigen " EIGEN_MAKESTRING(EIGEN_WORLD_VERSION) "." EIGEN_MAKESTRING(
                                                  EIGEN_MAJOR_VERSION) "." EIGEN_MAKESTRING(EIGEN_MINOR_VERSION));
    return true;
}();

}  // namespace
