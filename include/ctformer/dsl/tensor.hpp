// Declaring the tensors a graph reads, by name and shape:
//   auto x   = ctf::input<"x", ctf::batch, 10, 512>();      // fp32, run-time batch first
//   auto s   = ctf::input<"s", ctf::batch, ctf::upto<512>, 768>();  // any length L from 1 to 512
//   auto w   = ctf::weight<"W_q.weight", 512, 512>();       // fp32, static extents only
//   auto pad = ctf::bool_input<"pad", ctf::batch, 10>();    // booleans: true means attend
//   auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<1024>>();  // int32 token ids
#pragma once

#include "expr.hpp"
#include "../shape/check.hpp"
#include "../shape/errors.hpp"

namespace ctformer {

template <role Role, int... Extents>
using declaration_error = first_failure_t<
    check<shape<Extents...>::rank >= 1 && all_positive_or_batch(shape<Extents...>::extents),
          CTF_EXTENTS_MUST_BE_POSITIVE<shape_is<shape<Extents...>>>>,
    check<batch_only_leads(shape<Extents...>::extents),
          CTF_BATCH_EXTENT_MUST_COME_FIRST<shape_is<shape<Extents...>>>>,
    check<Role != role::weight || !shape<Extents...>::batched,
          CTF_WEIGHTS_HAVE_NO_BATCH_EXTENT<shape_is<shape<Extents...>>>>,
    check<Role != role::weight || !has_length(shape<Extents...>::extents),
          CTF_WEIGHTS_HAVE_NO_RUN_TIME_LENGTH<shape_is<shape<Extents...>>>>>;

template <fixed_string Name, role Role, dtype Dtype, int... Extents>
constexpr auto declare() {
    return make_leaf(tensor<Name, shape<Extents...>, Role, Dtype>{});
}

template <fixed_string Name, int... Extents, class Failure = declaration_error<role::input, Extents...>>
    requires has_error<Failure>
Failure input();
template <fixed_string Name, int... Extents>
    requires no_error<declaration_error<role::input, Extents...>>
constexpr auto input() {
    return declare<Name, role::input, dtype::f32, Extents...>();
}

template <fixed_string Name, int... Extents, class Failure = declaration_error<role::input, Extents...>>
    requires has_error<Failure>
Failure bool_input();
template <fixed_string Name, int... Extents>
    requires no_error<declaration_error<role::input, Extents...>>
constexpr auto bool_input() {
    return declare<Name, role::input, dtype::boolean, Extents...>();
}

template <fixed_string Name, int... Extents, class Failure = declaration_error<role::input, Extents...>>
    requires has_error<Failure>
Failure id_input();
template <fixed_string Name, int... Extents>
    requires no_error<declaration_error<role::input, Extents...>>
constexpr auto id_input() {
    return declare<Name, role::input, dtype::i32, Extents...>();
}

template <fixed_string Name, int... Extents, class Failure = declaration_error<role::weight, Extents...>>
    requires has_error<Failure>
Failure weight();
template <fixed_string Name, int... Extents>
    requires no_error<declaration_error<role::weight, Extents...>>
constexpr auto weight() {
    return declare<Name, role::weight, dtype::f32, Extents...>();
}

}  // namespace ctformer
