// Sentence embeddings with a MiniLM-L6 (all-MiniLM-L6-v2's geometry) generated from its config.json,
// with no declaration written: ctformer_add_model(minilm_l6 HF_CONFIG config.json PARAMS seq=64
// output=sentence_embedding) in examples/CMakeLists.txt. A batch of sentences of different lengths
// in, one unit vector each out (the mean of the real tokens' hidden states, L2-normalised, as
// sentence-transformers makes them), and their cosine similarities printed.
//
// Tokenization stays outside ctformer: ids in, vectors out. The ids below are what the model's
// tokenizer (BERT's uncased WordPiece, [CLS] = 101 and [SEP] = 102 around the words) gives.
//
//   sentence_embeddings       random weights: the similarities then mean nothing
//   sentence_embeddings DIR   DIR's model.safetensors, e.g. a download of
//                             sentence-transformers/all-MiniLM-L6-v2
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "minilm_l6.hpp"
#include "random_weights.hpp"

namespace {

struct sentence {
    const char* text;
    std::vector<int> ids;
};

const std::vector<sentence> sentences = {
    {"the cat sat on the mat", {101, 1996, 4937, 2938, 2006, 1996, 13523, 102}},
    {"a dog sat on the mat", {101, 1037, 3899, 2938, 2006, 1996, 13523, 102}},
    {"the weather is nice today", {101, 1996, 4633, 2003, 3835, 2651, 102}},
    {"hello world", {101, 7592, 2088, 102}},
};

}  // namespace

int main(int argc, char** argv) try {
    minilm_l6 model;
    if (argc > 1) {
        // A sentence-transformers checkpoint holds the pooler too, which sentence embeddings do not
        // read: not strict.
        model.bind_directory(argv[1], {.strict = false});
    } else {
        model.bind(random_weights());
    }

    // The batch padded to its longest sentence: ids, the attention mask (1 for a real token), and the
    // lengths, so that no work is spent on the padding.
    const std::size_t batch = sentences.size();
    std::size_t longest = 0;
    for (const sentence& s : sentences) longest = std::max(longest, s.ids.size());
    ctformer::id_tensor ids({batch, longest});
    ctformer::host_tensor<float> mask({batch, longest});
    std::vector<std::size_t> lengths;
    for (std::size_t b = 0; b < batch; ++b) {
        const std::vector<int>& s = sentences[b].ids;
        std::copy(s.begin(), s.end(), ids.data.begin() + b * longest);
        std::fill_n(mask.data.begin() + b * longest, s.size(), 1.0f);
        lengths.push_back(s.size());
    }

    ctformer::host_tensor<float> vectors;  // [B, 384], each of length 1
    model.run({{"attention_mask", mask}}, {{"input_ids", ids}}, vectors, {.threads = 2, .lengths = lengths});

    const std::size_t d = vectors.dims[1];
    std::printf("%s, %s weights: %zu sentences, %zu-dimensional embeddings\n", std::string(model.target()).c_str(),
                argc > 1 ? argv[1] : "random", batch, d);
    std::printf("cosine similarity\n");
    for (std::size_t i = 0; i < batch; ++i) {
        for (std::size_t j = 0; j < batch; ++j) {
            float dot = 0;
            for (std::size_t k = 0; k < d; ++k) dot += vectors.data[i * d + k] * vectors.data[j * d + k];
            std::printf(" %6.3f", dot);
        }
        std::printf("   %s\n", sentences[i].text);
    }
} catch (const std::exception& e) {
    std::fprintf(stderr, "sentence_embeddings: %s\n", e.what());
    return 1;
}
