// expect: CTF_POSITIONS_DO_NOT_FIT_THE_TABLE
// RoBERTa numbers positions from padding_idx + 1 = 2: sequences of up to 512 tokens need 514 rows.
#include <ctformer/ctformer.hpp>

constexpr ctf::nn::bert_config roberta{.family = ctf::nn::bert_family::roberta, .positions = 514, .token_types = 1};

int main() {
#ifdef CTF_FAIL
    auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<513>>();
    auto mask = ctf::bool_input<"attention_mask", ctf::batch, ctf::upto<513>>();
#else
    auto ids = ctf::id_input<"input_ids", ctf::batch, ctf::upto<512>>();
    auto mask = ctf::bool_input<"attention_mask", ctf::batch, ctf::upto<512>>();
#endif
    auto y = ctf::nn::bert<roberta>(ids, mask);
    (void)y;
}
