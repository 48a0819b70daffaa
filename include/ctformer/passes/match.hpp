// What the fusion rules look at in a node: its operation and its children.
//   op_t<E>          the operation of a call node (matmul_op, gemm_op<...>, ...)
//   child<I>(e)      its I-th child, child_t<E, I> the child's type
//   is_op<E, Op>     E is an Op node;  is_weight<E>  E is a weight leaf
#pragma once

#include <type_traits>

#include <boost/hana/drop_front.hpp>
#include <boost/hana/size.hpp>
#include <boost/hana/unpack.hpp>

#include "../dsl/ops/elementwise.hpp"
#include "../dsl/ops/mask.hpp"
#include "../dsl/ops/rotary.hpp"
#include "../dsl/ops/fused.hpp"

namespace ctformer {

template <class E>
using op_t = decltype(head_t<E>::op);

template <std::size_t I, class E>
const auto& child(const E& e) {
    return e.elements[hana::size_c<I + 1>];
}

template <class E, std::size_t I>
using child_t = std::decay_t<decltype(child<I>(std::declval<const E&>()))>;

template <class E>
inline constexpr std::size_t arity = decltype(hana::size(std::declval<E>().elements))::value - 1;

template <class E, class Op>
concept is_op = expression<E> && !is_leaf<E> && std::is_same_v<op_t<E>, Op>;

namespace detail {
template <class Leaf>
struct is_weight_leaf : std::false_type {};
template <fixed_string Name, class Shape>
struct is_weight_leaf<tensor<Name, Shape, role::weight>> : std::true_type {};
template <class Op>
struct is_gemm : std::false_type {};
template <class Epilogue>
struct is_gemm<gemm_op<Epilogue>> : std::true_type {};
template <class Op>
struct is_columns : std::false_type {};
template <int Begin, int End>
struct is_columns<columns_op<Begin, End>> : std::true_type {};
template <class Op>
struct is_attention : std::false_type {};
template <attention_masks Masks>
struct is_attention<attention_op<Masks>> : std::true_type {};
template <class Op>
struct is_probabilities : std::false_type {};
template <attention_masks Masks>
struct is_probabilities<attention_probabilities_op<Masks>> : std::true_type {};
template <class Op>
struct is_activation : std::false_type {};
template <activation Act>
struct is_activation<activation_op<Act>> : std::true_type {};
template <class Op>
struct is_rotary : std::false_type {};
template <rotary_spec S>
struct is_rotary<rotary_op<S>> : std::true_type {};
template <class Op>
struct is_mask : std::false_type {};
template <mask_kind Kind, int Window>
struct is_mask<mask_op<Kind, Window>> : std::true_type {};
}  // namespace detail

template <class E>
concept is_constant = expression<E> && is_leaf<E> && requires { typename head_t<E>::table; };

template <class E>
concept is_weight = expression<E> && is_leaf<E> && detail::is_weight_leaf<head_t<E>>::value;

template <class E>
concept is_gemm = expression<E> && !is_leaf<E> && detail::is_gemm<op_t<E>>::value;

// A gemm whose epilogue is exactly Epilogue.
template <class E, class Epilogue>
concept is_gemm_with = is_op<E, gemm_op<Epilogue>>;

template <class E>
concept is_columns = expression<E> && !is_leaf<E> && detail::is_columns<op_t<E>>::value;

template <class E>
concept is_attention = expression<E> && !is_leaf<E> && detail::is_attention<op_t<E>>::value;

template <class E>
concept is_probabilities = expression<E> && !is_leaf<E> && detail::is_probabilities<op_t<E>>::value;

template <class E>
concept is_mask = expression<E> && !is_leaf<E> && detail::is_mask<op_t<E>>::value;

template <class E>
concept is_activation = expression<E> && !is_leaf<E> && detail::is_activation<op_t<E>>::value;

template <class E>
concept is_rotary = expression<E> && !is_leaf<E> && detail::is_rotary<op_t<E>>::value;

template <class A, class B>
concept same_shape = std::is_same_v<shape_of_t<A>, shape_of_t<B>>;

// The operand of a fused node with role R (dsl/ops/fused.hpp), and its type.
template <operand_role R, class E>
const auto& operand_of(const E& e) {
    return child<operand_index<op_t<E>, R>()>(e);
}

template <class E, operand_role R>
using operand_t = child_t<E, operand_index<op_t<E>, R>()>;

template <class E, operand_role R>
inline constexpr bool has_operand_role = has_operand<op_t<E>, R>;

// The operation object of a call node (a scale factor, an eps).
template <class E>
const auto& op_of(const E& e) {
    return e.elements[hana::size_c<0>].elements[hana::size_c<0>].op;
}

template <class Epilogue>
using epilogue_of = typename op_t<Epilogue>::epilogue_type;

// A gemm whose output is a projection: at most a bias and rotary positions after the product.
template <class G>
concept projection_gemm = is_gemm<G> && epilogue_of<G>::act == activation::none && !epilogue_of<G>::residual &&
                          !epilogue_of<G>::gated;

// The gemm node g with another epilogue, and `extra` children (a residual) after its own.
template <class Epilogue, class G, class... Extra>
auto with_epilogue(const G& g, Extra... extra) {
    return hana::unpack(hana::drop_front(g.elements), [&](const auto&... children) {
        return make_node<shape_of_t<G>>(gemm_op<Epilogue>{}, children..., std::move(extra)...);
    });
}

}  // namespace ctformer
