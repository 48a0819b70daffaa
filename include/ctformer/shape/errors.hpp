// Every compile-time message ctformer gives, in one place (Eigen-style).
//
// A shape mistake makes the operation the user called return one of these incomplete types, so the
// first error is at the user's own line and reads, for example:
//   error: invalid use of incomplete type 'struct ctformer::CTF_MATMUL_INNER_EXTENTS_DIFFER<
//          ctformer::lhs_is<ctformer::shape<10, 512> >, ctformer::rhs_is<ctformer::shape<256, 64> > >'
// In shapes, -1 is the run-time batch extent (printed as B elsewhere), -1000512 a run-time length
// of at most 512 (upto<512>, printed L<=512), -2000128 one of a second length variable (upto<128, 1>).
#pragma once

#include "fixed_string.hpp"

namespace ctformer {

// What a message is about: shapes, numbers and names it carries.
template <class Shape> struct lhs_is {};
template <class Shape> struct rhs_is {};
template <class Shape> struct input_is {};
template <class Shape> struct weight_is {};
template <class Shape> struct bias_is {};
template <class Shape> struct gamma_is {};
template <class Shape> struct beta_is {};
template <class Shape> struct scores_is {};
template <class Shape> struct mask_is {};
template <class Shape> struct query_is {};
template <class Shape> struct key_is {};
template <class Shape> struct value_is {};
template <class Shape> struct shape_is {};
template <class T> struct first_is {};
template <class T> struct second_is {};
template <fixed_string Name> struct name_is {};
template <int N> struct heads_is {};
template <int N> struct kv_heads_is {};
template <int N> struct d_model_is {};
template <int N> struct d_ff_is {};
template <int N> struct layers_is {};
template <int N> struct count_is {};
template <int N> struct head_dim_is {};
template <int N> struct window_is {};
template <int N> struct rotary_dims_is {};
template <class Shape> struct result_is {};
template <int Begin, int End> struct columns_is {};
template <fixed_string Name> struct target_is {};
template <fixed_string Flags> struct pass_flags {};

// ---- declarations ---------------------------------------------------------------------------------
template <class Shape> struct CTF_BATCH_EXTENT_MUST_COME_FIRST;
template <class Shape> struct CTF_EXTENTS_MUST_BE_POSITIVE;
template <class Shape> struct CTF_WEIGHTS_HAVE_NO_BATCH_EXTENT;
template <class Shape> struct CTF_WEIGHTS_HAVE_NO_RUN_TIME_LENGTH;
template <class Name, class First, class Second> struct CTF_TENSOR_NAME_DECLARED_WITH_TWO_SHAPES;
template <class Name, class First, class Second> struct CTF_TENSOR_NAME_DECLARED_TWICE;

// ---- operations -----------------------------------------------------------------------------------
template <class Lhs, class Rhs> struct CTF_MATMUL_NEEDS_RANK_2_OR_MORE;
template <class Lhs, class Rhs> struct CTF_MATMUL_INNER_EXTENTS_DIFFER;
template <class Lhs, class Rhs> struct CTF_MATMUL_BATCH_EXTENTS_DIFFER;
template <class Input> struct CTF_TRANSPOSE_NEEDS_RANK_2_OR_MORE;
template <class Lhs, class Rhs> struct CTF_ADD_SHAPES_DIFFER;
template <class Lhs, class Rhs> struct CTF_MULTIPLY_SHAPES_DIFFER;
template <class Input, class Weight> struct CTF_LINEAR_WEIGHT_DOES_NOT_FIT_INPUT;
template <class Weight, class... Bias> struct CTF_LINEAR_BIAS_DOES_NOT_FIT_WEIGHT;
template <class Scores, class Mask> struct CTF_MASK_DOES_NOT_FIT_SCORES;
template <class Mask> struct CTF_BOOLEAN_MASK_MUST_HAVE_BOOLEAN_ELEMENTS;
template <class Mask> struct CTF_ADDITIVE_MASK_MUST_HAVE_FLOAT_ELEMENTS;
template <class Scores> struct CTF_CAUSAL_MASK_NEEDS_RANK_2_OR_MORE;
template <class Window> struct CTF_SLIDING_WINDOW_MUST_BE_POSITIVE;
template <class Input, class Gamma, class Beta> struct CTF_LAYER_NORM_PARAMS_DO_NOT_FIT_INPUT;
template <class Input, class Gamma> struct CTF_RMS_NORM_GAIN_DOES_NOT_FIT_INPUT;
template <class Input, class HeadDim, class RotaryDims> struct CTF_ROTARY_DOES_NOT_FIT_INPUT;
template <class Input, class Heads> struct CTF_HEADS_DO_NOT_DIVIDE_WIDTH;
template <class Input> struct CTF_MERGE_HEADS_NEEDS_RANK_3_OR_MORE;
template <class Input, class Heads> struct CTF_EXPANDED_HEADS_NOT_A_MULTIPLE;
template <class Input, class Columns> struct CTF_COLUMNS_OUTSIDE_THE_WIDTH;
template <class... Operands> struct CTF_TOKEN_IDS_ARE_READ_ONLY_BY_AN_EMBEDDING;
template <class Input> struct CTF_EMBEDDING_NEEDS_TOKEN_IDS_FROM_AN_ID_INPUT;
template <class Weight> struct CTF_EMBEDDING_TABLE_MUST_BE_A_MATRIX;
template <class Input, class Weight> struct CTF_POSITIONS_DO_NOT_FIT_THE_TABLE;
template <class Input> struct CTF_POOLING_NEEDS_BATCH_LENGTH_WIDTH;
template <class Input, class... Mask> struct CTF_POOLING_MASK_DOES_NOT_FIT;

// ---- nn blocks ------------------------------------------------------------------------------------
template <class Heads, class DModel> struct CTF_HEADS_DO_NOT_DIVIDE_D_MODEL;
template <class KvHeads, class Heads> struct CTF_KV_HEADS_DO_NOT_DIVIDE_HEADS;
template <class DFF> struct CTF_D_FF_MUST_BE_POSITIVE;
template <class DModel> struct CTF_POSITIONAL_ENCODING_NEEDS_EVEN_D_MODEL;
template <class Input, class DModel> struct CTF_INPUT_WIDTH_IS_NOT_D_MODEL;
template <class Key, class Value> struct CTF_KEY_AND_VALUE_LENGTHS_DIFFER;
template <class Query, class Key> struct CTF_QUERY_AND_KEY_BATCH_DIFFER;
template <class Query, class Key, class Value> struct CTF_ATTENTION_INPUTS_DO_NOT_FIT;
template <class Layers> struct CTF_ENCODER_NEEDS_ONE_LAYER_OR_MORE;
template <class Layers> struct CTF_DECODER_NEEDS_ONE_LAYER_OR_MORE;

// ---- repeat ---------------------------------------------------------------------------------------
template <class Count> struct CTF_REPEAT_NEEDS_ONE_ITERATION_OR_MORE;
template <class Input, class Result> struct CTF_REPEATED_BLOCK_CHANGES_THE_SHAPE;
template <class Count> struct CTF_REPEATS_DO_NOT_NEST;

// ---- compiling ------------------------------------------------------------------------------------
template <class Target, class Flags> struct CTF_COMPILE_FOR_AN_EMULATED_TARGET_PASS_SIMD_FLAGS;

}  // namespace ctformer
