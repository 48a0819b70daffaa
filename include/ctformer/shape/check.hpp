// How a rule reports the first named message that applies (see errors.hpp).
//
// A rule is a list of checks; each is check<condition, MESSAGE> or a nested rule's result. The
// operation the user called has two declarations: one constrained on `no_error<rule>` that builds
// the node, and one constrained on `has_error<rule>`, declared only, whose return type is the
// incomplete message. Calling it is the error, reported at the caller's line.
#pragma once

#include <type_traits>

namespace ctformer {

// check<ok, M>::failure is void when ok, else the message M.
template <bool Ok, class Message>
struct check {
    using failure = std::conditional_t<Ok, void, Message>;
};

// The outcome of another rule, used as one check inside a larger rule.
template <class Failure>
struct outcome {
    using failure = Failure;
};

namespace detail {
template <class... Checks>
struct first_failure {
    using type = void;
};
// Lazy: the checks after the first failure are never evaluated, so a later check may assume the
// earlier ones passed (names checked only once the shapes they are declared with are valid).
template <class Check, class... Rest>
struct first_failure<Check, Rest...> {
    using type = typename std::conditional_t<std::is_void_v<typename Check::failure>, first_failure<Rest...>,
                                             std::type_identity<typename Check::failure>>::type;
};
}  // namespace detail

// The first failing check's message, or void when all pass.
template <class... Checks>
using first_failure_t = typename detail::first_failure<Checks...>::type;

template <class Failure>
concept no_error = std::is_void_v<Failure>;

template <class Failure>
concept has_error = !std::is_void_v<Failure>;

}  // namespace ctformer
