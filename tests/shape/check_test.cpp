// How a rule reports (shape/check.hpp): the first failing check's message, void when every check
// passes, the checks after a failure never instantiated, and a nested rule's outcome as one check.
#include <gtest/gtest.h>

#include <type_traits>

#include <ctformer/shape/check.hpp>

namespace {

template <int N>
struct FIRST_MESSAGE;
template <int N>
struct SECOND_MESSAGE;

// A check that does not compile unless it is never asked for its failure.
template <class T>
struct ill_formed_check {
    static_assert(sizeof(T) == 0, "checked after an earlier failure");
    using failure = void;
};

using ctformer::check;
using ctformer::first_failure_t;

static_assert(std::is_void_v<first_failure_t<>>);
static_assert(std::is_void_v<first_failure_t<check<true, FIRST_MESSAGE<1>>, check<true, SECOND_MESSAGE<2>>>>);
static_assert(std::is_same_v<first_failure_t<check<true, FIRST_MESSAGE<1>>, check<false, SECOND_MESSAGE<2>>>,
                             SECOND_MESSAGE<2>>);
static_assert(std::is_same_v<first_failure_t<check<false, FIRST_MESSAGE<1>>, check<false, SECOND_MESSAGE<2>>>,
                             FIRST_MESSAGE<1>>);  // the first, not the last
// Lazy: after a failure, the later checks are not instantiated.
static_assert(std::is_same_v<first_failure_t<check<false, FIRST_MESSAGE<3>>, ill_formed_check<int>>, FIRST_MESSAGE<3>>);
// A nested rule's result, as one check.
using inner = first_failure_t<check<true, FIRST_MESSAGE<4>>, check<false, SECOND_MESSAGE<4>>>;
static_assert(std::is_same_v<first_failure_t<ctformer::outcome<inner>, check<false, FIRST_MESSAGE<5>>>, SECOND_MESSAGE<4>>);
static_assert(std::is_void_v<first_failure_t<ctformer::outcome<void>, check<true, FIRST_MESSAGE<5>>>>);
// no_error / has_error, the two declarations' constraints.
static_assert(ctformer::no_error<void> && !ctformer::has_error<void>);
static_assert(ctformer::has_error<FIRST_MESSAGE<6>> && !ctformer::no_error<FIRST_MESSAGE<6>>);

// An operation declared twice, as the DSL's are: the one whose rule passes builds, the other only
// names its message as the return type.
template <int N>
using positive_rule = first_failure_t<check<(N > 0), FIRST_MESSAGE<N>>>;
template <int N>
    requires ctformer::no_error<positive_rule<N>>
int checked() {
    return N;
}
template <int N>
    requires ctformer::has_error<positive_rule<N>>
positive_rule<N> checked();

template <int N>
concept builds = std::is_same_v<decltype(checked<N>()), int>;
static_assert(builds<3> && !builds<-3>);
static_assert(std::is_same_v<decltype(checked<-3>()), FIRST_MESSAGE<-3>>);

TEST(Check, AnOperationWhoseRulePassesBuilds) { EXPECT_EQ(checked<3>(), 3); }

}  // namespace
