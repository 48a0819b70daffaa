// Uses the generated my_attention through its plain header: binds weights, runs, checks the output
// against causal multi-head attention written out in plain loops (every weight and bias counts), and
// shows that a missing weight is a typed error naming it.
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "my_attention.hpp"

namespace {

constexpr std::size_t batch = 2, length = 16, d = 64, heads = 4, d_head = d / heads;

ctformer::host_tensor<float> pattern(ctformer::dims_t dims, float scale, float phase) {
    ctformer::host_tensor<float> t(std::move(dims));
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = scale * std::sin(0.37f * float(i) + phase);
    return t;
}

// y = x·Wᵀ + b for every row of x [rows, d].
std::vector<double> linear(const ctformer::host_tensor<float>& x, const ctformer::host_tensor<float>& w,
                           const ctformer::host_tensor<float>& b) {
    const std::size_t rows = x.size() / d;
    std::vector<double> y(rows * d);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t o = 0; o < d; ++o) {
            double sum = b[o];
            for (std::size_t i = 0; i < d; ++i) sum += double(x[r * d + i]) * w[o * d + i];
            y[r * d + o] = sum;
        }
    return y;
}

// Causal multi-head self-attention, as nn.MultiheadAttention computes it with is_causal.
std::vector<double> expected(const ctformer::tensor_map& w, const ctformer::host_tensor<float>& x) {
    const std::vector<double> q = linear(x, w.at("q_proj_weight"), w.at("q_proj_bias"));
    const std::vector<double> k = linear(x, w.at("k_proj_weight"), w.at("k_proj_bias"));
    const std::vector<double> v = linear(x, w.at("v_proj_weight"), w.at("v_proj_bias"));
    ctformer::host_tensor<float> merged({batch, length, d});
    for (std::size_t b = 0; b < batch; ++b)
        for (std::size_t h = 0; h < heads; ++h)
            for (std::size_t i = 0; i < length; ++i) {
                const auto at = [&](std::size_t row, std::size_t c) { return (b * length + row) * d + h * d_head + c; };
                std::vector<double> p(i + 1);  // query i sees keys 0..i
                double max = -1e300, sum = 0;
                for (std::size_t j = 0; j <= i; ++j) {
                    for (std::size_t c = 0; c < d_head; ++c) p[j] += q[at(i, c)] * k[at(j, c)];
                    p[j] /= std::sqrt(double(d_head));
                    max = std::max(max, p[j]);
                }
                for (double& s : p) sum += (s = std::exp(s - max));
                for (std::size_t c = 0; c < d_head; ++c) {
                    double o = 0;
                    for (std::size_t j = 0; j <= i; ++j) o += p[j] / sum * v[at(j, c)];
                    merged[at(i, c)] = float(o);
                }
            }
    return linear(merged, w.at("out_proj.weight"), w.at("out_proj.bias"));
}

}  // namespace

int main() {
    ctformer::tensor_map weights;
    float phase = 0;
    for (const char* name : {"q_proj", "k_proj", "v_proj"}) {
        weights[std::string(name) + "_weight"] = pattern({d, d}, 0.15f, phase += 1);
        weights[std::string(name) + "_bias"] = pattern({d}, 0.3f, phase += 1);
    }
    weights["out_proj.weight"] = pattern({d, d}, 0.15f, phase += 1);
    weights["out_proj.bias"] = pattern({d}, 0.3f, phase += 1);

    my_attention model;
    model.bind(weights);
    const ctformer::host_tensor<float> x = pattern({batch, length, d}, 1.0f, 0.5f);
    ctformer::host_tensor<float> y;
    model.run({{"x", x}}, y);
    const std::vector<double> want = expected(weights, x);
    double largest = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {  // outputs are O(1): fp32 within 1e-5 + 1e-4·|want|
        if (!(std::abs(y[i] - want[i]) <= 1e-5 + 1e-4 * std::abs(want[i])))  // a NaN fails too
            return std::printf("wrong output at %zu: %g, expected %g\n", i, y[i], want[i]), 1;
        largest = std::max(largest, std::abs(y[i] - want[i]));
    }
    std::cout << model.explain(2);
    std::printf("my_attention on %s: output [2,16,64] matches the loops, largest difference %.2e\n",
                std::string(model.target()).c_str(), largest);

    weights.erase("k_proj_weight");
    try {
        my_attention().bind(weights);
    } catch (const ctformer::missing_tensor& e) {
        std::printf("%s\n", e.what());
        return 0;
    }
    return 1;
}
