// Masking attention scores [..., Lq, Lk]. One polarity for boolean masks: true means *attend*.
//
//   mask(s, causal)               query i sees keys j <= i (top-left aligned, PyTorch's is_causal)
//   mask(s, causal_bottom_right)  query i sees keys j <= i + (Lk - Lq) (aligned at the last key)
//   mask(s, sliding_window<W>)    query i sees keys i - W < j <= i, the last W, its own included
//                                 (a banded causal mask: Mistral's, as Hugging Face's masks count it)
//   mask(s, attend(m))            m boolean, broadcast to s: its last extent Lk, the others s's
//                                 trailing ones or 1 (numpy's rule); a batched m's batch is s's
//                                 ([B, Lq, Lk] masks each sequence, for every head alike). So
//                                 [Lq, Lk], [B, Lq, Lk], [B, 1, Lq, Lk], [heads, Lq, Lk] and
//                                 [B, heads, Lq, Lk] all fit scores [B, heads, Lq, Lk]
//   mask(s, key_padding(m))       m boolean [B, Lk] (or [Lk] for unbatched scores): key j of
//                                 sequence b is attended when m[b, j]
//   mask(s, additive(bias))       s + bias, bias fp32 broadcast to s as attend's m (ALiBi,
//                                 relative-position biases, the seeds' mask · (-1e9))
//
// A masked score becomes -inf; softmax turns a row with every key masked into zeros. An additive
// -1e9 is finite: a row with every key given -1e9 is uniform, as in the seeds.
// (The seeds' NumPy code adds mask·(-1e9) with 1 = masked: that is additive(mask·(-1e9)).)
#pragma once

#include <tuple>

#include "../bind.hpp"

namespace ctformer {

enum class mask_kind { causal, causal_bottom_right, attend, key_padding, additive };

// Window: a causal mask's sliding window, the keys a query sees at most (0: every key up to its own).
template <mask_kind Kind, int Window = 0>
struct mask_op {
    static constexpr const char* name = "mask";
    static constexpr mask_kind kind = Kind;
    static constexpr int window = Window;
    bool batch_first = false;  // a batched mask of fewer extents than the scores: its batch is theirs
    static std::string detail() {
        constexpr const char* names[] = {"causal", "causal_bottom_right", "attend", "key_padding",
                                         "additive"};
        return names[static_cast<int>(Kind)] + (Window ? " window=" + std::to_string(Window) : std::string());
    }
};

// Whether a mask of extents M broadcasts to scores of extents S (attend and additive, above).
template <std::size_t MN, std::size_t SN>
constexpr bool mask_broadcasts(const extents_t<MN>& m, const extents_t<SN>& s) {
    if constexpr (MN == 0 || MN > SN) {
        return false;
    } else {
        const bool batched = m[0] == batch;
        if (m[MN - 1] != s[SN - 1] || (batched && s[0] != batch)) return false;
        const std::size_t rest = MN - batched;  // the extents aligned at the right
        if (rest > SN - (s[0] == batch)) return false;
        for (std::size_t i = 0; i < rest; ++i)
            if (m[MN - 1 - i] != s[SN - 1 - i] && m[MN - 1 - i] != 1) return false;
        return true;
    }
}

// A batched mask of fewer extents than its scores aligns its batch with theirs.
template <class Mask, class Scores>
inline constexpr bool mask_batch_first = shape_of_t<Mask>::batched && rank_of<Mask> < Scores::rank;

// How to mask, with the tensors it needs.
template <mask_kind Kind, operand... Operands>
struct mask_spec {
    static constexpr mask_kind kind = Kind;
    static constexpr int window = 0;
    std::tuple<Operands...> operands;
};

inline constexpr mask_spec<mask_kind::causal> causal{};
inline constexpr mask_spec<mask_kind::causal_bottom_right> causal_bottom_right{};

// The causal mask of a sliding window of W keys.
template <int W>
struct sliding_window_spec : mask_spec<mask_kind::causal> {
    static constexpr int window = W;
};
template <int W>
inline constexpr sliding_window_spec<W> sliding_window{};

template <operand M>
constexpr mask_spec<mask_kind::attend, M> attend(M m) {
    return {{std::move(m)}};
}
template <operand M>
constexpr mask_spec<mask_kind::key_padding, M> key_padding(M m) {
    return {{std::move(m)}};
}
template <operand B>
constexpr mask_spec<mask_kind::additive, B> additive(B bias) {
    return {{std::move(bias)}};
}

namespace detail {
template <class T>
struct is_mask_spec : std::false_type {};
template <mask_kind K, class... O>
struct is_mask_spec<mask_spec<K, O...>> : std::true_type {};
template <int W>
struct is_mask_spec<sliding_window_spec<W>> : std::true_type {};
}  // namespace detail

template <class T>
concept mask_descriptor = detail::is_mask_spec<T>::value;

// Whether a mask fits scores of shape Scores (used by mask() and by the attention blocks).
template <class Spec, shape_type Scores>
struct mask_rule;

template <shape_type Scores, mask_kind Kind>
    requires(Kind == mask_kind::causal || Kind == mask_kind::causal_bottom_right)
struct mask_rule<mask_spec<Kind>, Scores> {
    using failure = first_failure_t<
        check<(Scores::rank >= 2), CTF_CAUSAL_MASK_NEEDS_RANK_2_OR_MORE<scores_is<Scores>>>>;
};

template <shape_type Scores, int W>
struct mask_rule<sliding_window_spec<W>, Scores> {
    using failure = first_failure_t<check<(W >= 1), CTF_SLIDING_WINDOW_MUST_BE_POSITIVE<window_is<W>>>,
                                    mask_rule<mask_spec<mask_kind::causal>, Scores>>;
};

template <shape_type Scores, operand M>
struct mask_rule<mask_spec<mask_kind::attend, M>, Scores> {
    using failure = first_failure_t<
        check<dtype_of<M> == dtype::boolean,
              CTF_BOOLEAN_MASK_MUST_HAVE_BOOLEAN_ELEMENTS<mask_is<shape_of_t<M>>>>,
        check<mask_broadcasts(extents_of<M>, Scores::extents),
              CTF_MASK_DOES_NOT_FIT_SCORES<scores_is<Scores>, mask_is<shape_of_t<M>>>>>;
};

template <shape_type Scores, operand M>
struct mask_rule<mask_spec<mask_kind::key_padding, M>, Scores> {
    static constexpr auto expected = Scores::batched ? std::array{batch, last(Scores::extents)}
                                                     : std::array{last(Scores::extents), 0};
    static constexpr bool fits = Scores::rank >= 2 &&
                                 rank_of<M> == (Scores::batched ? 2 : 1) &&
                                 extents_of<M>[0] == expected[0] &&
                                 (rank_of<M> == 1 || last(extents_of<M>) == expected[1]);
    using failure = first_failure_t<
        check<dtype_of<M> == dtype::boolean,
              CTF_BOOLEAN_MASK_MUST_HAVE_BOOLEAN_ELEMENTS<mask_is<shape_of_t<M>>>>,
        check<fits, CTF_MASK_DOES_NOT_FIT_SCORES<scores_is<Scores>, mask_is<shape_of_t<M>>>>>;
};

template <shape_type Scores, operand B>
struct mask_rule<mask_spec<mask_kind::additive, B>, Scores> {
    using failure = first_failure_t<
        check<dtype_of<B> == dtype::f32, CTF_ADDITIVE_MASK_MUST_HAVE_FLOAT_ELEMENTS<mask_is<shape_of_t<B>>>>,
        check<mask_broadcasts(extents_of<B>, Scores::extents),
              CTF_MASK_DOES_NOT_FIT_SCORES<scores_is<Scores>, mask_is<shape_of_t<B>>>>>;
};

// Whether every one of several masks fits the scores.
template <shape_type Scores, mask_descriptor... Masks>
struct masks_fit {
    using failure = first_failure_t<mask_rule<Masks, Scores>...>;
};

// The tensors a mask reads, checked for names together with the expressions they meet.
template <class Spec>
using mask_operands_t = typename as_expr_list<decltype(Spec::operands)>::type;

template <operand S, mask_descriptor Spec>
using mask_error =
    first_failure_t<mask_rule<Spec, shape_of_t<S>>,
                    names_agree_across<expr_list<S>, mask_operands_t<Spec>>>;

template <operand S, mask_descriptor Spec, class Failure = mask_error<S, Spec>>
    requires has_error<Failure>
Failure mask(S, Spec);

template <operand S, mask_descriptor Spec>
    requires no_error<mask_error<S, Spec>>
auto mask(S scores, Spec spec) {
    auto masked = [](auto s, auto... m) {
        const bool batch_first = (mask_batch_first<decltype(m), shape_of_t<S>> || ...);
        return make_node<shape_of_t<S>>(mask_op<Spec::kind, Spec::window>{batch_first}, std::move(s), std::move(m)...);
    };
    return std::apply([&](auto... m) { return combine(masked, std::move(scores), std::move(m)...); },
                      std::move(spec.operands));
}

}  // namespace ctformer
