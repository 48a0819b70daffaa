// Token and learned position embeddings by PyTorch's names (nn.Embedding's {Name}.weight):
//   auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<1024>>();
//   auto h = ctf::nn::add_position_embedding<"transformer.wpe", 1024>(
//                ctf::nn::embedding<"transformer.wte", 50257, 768>(ids));        // GPT-2's h₀
// embedding reads {Name}.weight [Vocabulary, Width]; add_position_embedding adds, to x [..., L, D],
// row First + l of {Name}.weight [MaxPositions, D] at position l (First: RoBERTa's padding_idx + 1,
// else 0). Together they are one gather (fuse_position_embedding).
#pragma once

#include "../ops/elementwise.hpp"
#include "../ops/embedding.hpp"
#include "../tensor.hpp"

namespace ctformer::nn {

template <fixed_string Name, int Vocabulary, int Width>
using embedding_table = decltype(weight<Name + fixed_string(".weight"), Vocabulary, Width>());

template <fixed_string Name, int Vocabulary, int Width, operand Ids,
          class Failure = embedding_error<embedding_table<Name, Vocabulary, Width>, Ids>>
    requires has_error<Failure>
Failure embedding(Ids);

template <fixed_string Name, int Vocabulary, int Width, operand Ids>
    requires no_error<embedding_error<embedding_table<Name, Vocabulary, Width>, Ids>>
auto embedding(Ids ids) {
    return ctformer::embedding(embedding_table<Name, Vocabulary, Width>{}, std::move(ids));
}

template <fixed_string Name, int MaxPositions, operand X>
using position_table = embedding_table<Name, MaxPositions, last(extents_of<X>)>;

// x [..., L, D]: its positions fit the table.
template <fixed_string Name, int MaxPositions, int First, operand X, bool = (rank_of<X> >= 2)>
struct position_embedding_rule {
    using failure = CTF_POSITIONS_DO_NOT_FIT_THE_TABLE<input_is<shape_of_t<X>>, weight_is<shape<MaxPositions>>>;
};
template <fixed_string Name, int MaxPositions, int First, operand X>
struct position_embedding_rule<Name, MaxPositions, First, X, true> {
    using failure = leading_rows_error<last(extents_of<X>, 1), position_table<Name, MaxPositions, X>, First>;
};

template <fixed_string Name, int MaxPositions, int First, operand X>
using position_embedding_error = typename position_embedding_rule<Name, MaxPositions, First, X>::failure;

template <fixed_string Name, int MaxPositions, int First = 0, operand X,
          class Failure = position_embedding_error<Name, MaxPositions, First, X>>
    requires has_error<Failure>
Failure add_position_embedding(X);

template <fixed_string Name, int MaxPositions, int First = 0, operand X>
    requires no_error<position_embedding_error<Name, MaxPositions, First, X>>
auto add_position_embedding(X x) {
    constexpr int length = last(extents_of<X>, 1);
    return add(std::move(x), leading_rows<length, First>(position_table<Name, MaxPositions, X>{}));
}

}  // namespace ctformer::nn
