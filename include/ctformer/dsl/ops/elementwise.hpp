// Elementwise operations: add (also `a + b`), multiply (also `a * b`, elementwise), scale, and the activations relu, gelu (erf form, as
// PyTorch), gelu_tanh (PyTorch's approximate='tanh'), tanh and silu (x·σ(x)), each an activation_op
// (core/kinds.hpp).
//
// add and multiply broadcast like numpy without size-1 axes: the shape with fewer extents must equal the
// trailing extents of the other ([B,10,512] + [512] adds a bias to every row).
#pragma once

#include <string>

#include "../bind.hpp"
#include "../../core/kinds.hpp"

namespace ctformer {

struct add_op {
    static constexpr const char* name = "add";
};
struct multiply_op {
    static constexpr const char* name = "multiply";
};
struct scale_op {
    static constexpr const char* name = "scale";
    double factor;
    std::string detail() const { return number_text(factor); }
};
template <activation Act>
struct activation_op {
    static constexpr const char* name = activation_name(Act);
    static constexpr activation act = Act;
};

// a ∘ b for an elementwise operation: Failure unless the shapes broadcast.
template <operand A, operand B, class Failure>
using broadcast_error = first_failure_t<check<broadcastable(extents_of<A>, extents_of<B>), Failure>,
                                        outcome<no_ids_t<A, B>>, outcome<names_agree_t<A, B>>>;

template <operand A, operand B>
using add_error = broadcast_error<A, B, CTF_ADD_SHAPES_DIFFER<lhs_is<shape_of_t<A>>, rhs_is<shape_of_t<B>>>>;

template <operand A, operand B>
using multiply_error = broadcast_error<A, B, CTF_MULTIPLY_SHAPES_DIFFER<lhs_is<shape_of_t<A>>, rhs_is<shape_of_t<B>>>>;

template <class Op, operand A, operand B>
auto broadcast_node(Op op, A a, B b) {
    using result = shape_from_t<broadcast(extents_of<A>, extents_of<B>)>;
    return combine([op](auto x, auto y) { return make_node<result>(op, std::move(x), std::move(y)); },
                   std::move(a), std::move(b));
}

template <operand A, operand B, class Failure = add_error<A, B>>
    requires has_error<Failure>
Failure add(A, B);

template <operand A, operand B>
    requires no_error<add_error<A, B>>
auto add(A a, B b) {
    return broadcast_node(add_op{}, std::move(a), std::move(b));
}

template <operand A, operand B, class Failure = add_error<A, B>>
    requires has_error<Failure>
Failure operator+(A, B);

template <operand A, operand B>
    requires no_error<add_error<A, B>>
auto operator+(A a, B b) {
    return add(std::move(a), std::move(b));
}

template <operand A, operand B, class Failure = multiply_error<A, B>>
    requires has_error<Failure>
Failure multiply(A, B);

template <operand A, operand B>
    requires no_error<multiply_error<A, B>>
auto multiply(A a, B b) {
    return broadcast_node(multiply_op{}, std::move(a), std::move(b));
}

template <operand A, operand B, class Failure = multiply_error<A, B>>
    requires has_error<Failure>
Failure operator*(A, B);

template <operand A, operand B>
    requires no_error<multiply_error<A, B>>
auto operator*(A a, B b) {
    return multiply(std::move(a), std::move(b));
}

// An operation that keeps its operand's shape.
template <class Op, operand A>
auto same_shape_node(Op op, A a) {
    return combine([&](auto x) { return make_node<shape_of_t<A>>(op, std::move(x)); }, std::move(a));
}

template <operand A>
auto scale(A a, double factor) {
    return same_shape_node(scale_op{factor}, std::move(a));
}

// act(a); the identity for activation::none.
template <activation Act, operand A>
auto activate(A a) {
    if constexpr (Act == activation::none) return a;
    else return same_shape_node(activation_op<Act>{}, std::move(a));
}

template <operand A>
auto relu(A a) {
    return activate<activation::relu>(std::move(a));
}

template <operand A>
auto gelu(A a) {
    return activate<activation::gelu>(std::move(a));
}

template <operand A>
auto gelu_tanh(A a) {
    return activate<activation::gelu_tanh>(std::move(a));
}

template <operand A>
auto tanh(A a) {
    return activate<activation::tanh>(std::move(a));
}

template <operand A>
auto silu(A a) {
    return activate<activation::silu>(std::move(a));
}

}  // namespace ctformer
