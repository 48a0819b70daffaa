// compiled(graph): ctf::compile(graph) as an any_model (runtime/model-inl.h's make_any_model). Included
// by the model translation units.
#pragma once

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>

#include "configurations.hpp"

namespace run {

template <class Graph>
std::unique_ptr<ctf::any_model> compiled(Graph graph) {
    return ctformer::runtime::HWY_NAMESPACE::make_any_model(std::move(graph));
}

// The input every configuration reads: x [B, L, d_model], any length L up to Longest.
template <ctf::nn::config C, int Longest>
auto x() {
    return ctf::input<"x", ctf::batch, ctf::upto<Longest>, C.d_model>();
}

}  // namespace run
