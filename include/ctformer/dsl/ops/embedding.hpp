// Reading rows of a table by index:
//   embedding(table, ids)     table [V, D], ids [..., L] (an id_input) → [..., L, D]: row ids[...] of the
//                             table, as torch.nn.functional.embedding; an id outside [0, V) is a
//                             token_id_out_of_range error at run time
//   leading_rows<L, F>(table) table [P, D] → [L, D]: its rows F … F+L-1, F + L at most P (the
//                             positions of a learned position embedding: F = 0, or RoBERTa's
//                             padding_idx + 1)
//   table_row<I>(table)       table [V, D] → [D]: row I (BERT's token type 0, when no types are given)
// fuse_position_embedding makes embedding(table, ids) + leading_rows(positions) one gather.
#pragma once

#include <string>

#include "../bind.hpp"

namespace ctformer {

// Positions: whether each row also adds its position's row of a second table.
// first: the position table's row of position 0.
template <bool Positions>
struct embedding_op {
    static constexpr const char* name = Positions ? "embedding + positions" : "embedding";
    static constexpr bool positions = Positions;
    int first = 0;
    std::string detail() const { return first ? "positions from row " + std::to_string(first) : ""; }
};
struct leading_rows_op {
    static constexpr const char* name = "leading_rows";
    int first = 0;
};
struct table_row_op {
    static constexpr const char* name = "table_row";
    int row = 0;
};

// A [rows, width] table of static extents (a weight).
template <operand Table>
inline constexpr bool is_table = rank_of<Table> == 2 && extents_of<Table>[0] > 0 && extents_of<Table>[1] > 0;

template <operand Table, operand Ids>
using embedding_error = first_failure_t<
    check<is_table<Table>, CTF_EMBEDDING_TABLE_MUST_BE_A_MATRIX<weight_is<shape_of_t<Table>>>>,
    check<dtype_of<Ids> == dtype::i32, CTF_EMBEDDING_NEEDS_TOKEN_IDS_FROM_AN_ID_INPUT<input_is<shape_of_t<Ids>>>>,
    outcome<names_agree_t<Table, Ids>>>;

template <operand Table, operand Ids, class Failure = embedding_error<Table, Ids>>
    requires has_error<Failure>
Failure embedding(Table, Ids);

template <operand Table, operand Ids>
    requires no_error<embedding_error<Table, Ids>>
auto embedding(Table table, Ids ids) {
    using result = shape_from_t<concat(extents_of<Ids>, std::array{last(extents_of<Table>)})>;
    return combine([](auto t, auto i) { return make_node<result>(embedding_op<false>{}, std::move(t), std::move(i)); },
                   std::move(table), std::move(ids));
}

template <int Length, operand Table, int First = 0>
using leading_rows_error = first_failure_t<check<
    is_table<Table> && First >= 0 && First + maximum(Length) <= extents_of<Table>[0],
    CTF_POSITIONS_DO_NOT_FIT_THE_TABLE<input_is<shape<First + maximum(Length)>>, weight_is<shape_of_t<Table>>>>>;

template <int Length, int First = 0, operand Table, class Failure = leading_rows_error<Length, Table, First>>
    requires has_error<Failure>
Failure leading_rows(Table);

template <int Length, int First = 0, operand Table>
    requires no_error<leading_rows_error<Length, Table, First>>
auto leading_rows(Table table) {
    using result = shape<Length, last(extents_of<Table>)>;
    return combine([](auto t) { return make_node<result>(leading_rows_op{First}, std::move(t)); }, std::move(table));
}

template <int Row, operand Table, class Failure = leading_rows_error<1, Table, Row>>
    requires has_error<Failure>
Failure table_row(Table);

template <int Row, operand Table>
    requires no_error<leading_rows_error<1, Table, Row>>
auto table_row(Table table) {
    using result = shape<last(extents_of<Table>)>;
    return combine([](auto t) { return make_node<result>(table_row_op{Row}, std::move(t)); }, std::move(table));
}

}  // namespace ctformer
