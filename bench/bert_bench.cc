// The BERT family end to end (issue 41), ids in, pooled vectors out, random weights (the time does
// not depend on them), with the FMA peak beside them:
//   bert/pooled     BERT-base, batch 8, lengths drawn from 16..128 (CTFORMER_BERT_LENGTHS, set by
//                   bench/bert.sh with the PyTorch peer's seed), ids to pooler_output
//   minilm/sentences  MiniLM-L6 sentence embeddings of 64 sentences of lengths 8..64
//                   (CTFORMER_MINILM_LENGTHS); sentences/s
//   minilm/single16   one sentence of 16 tokens: the latency
// "mixed" runs the batch by its lengths (run_options::lengths: no padding work), "padded" the padded
// batch with its attention_mask as key padding. GFLOP/s count the real tokens' work in both.
#include <cstdlib>
#include <sstream>

#include <ctformer/compile.hpp>
#include <ctformer/ctformer.hpp>
#include <ctformer/reference/random_inputs.hpp>

#include "peak.hpp"

namespace {
namespace nn = ctf::nn;

std::vector<std::size_t> lengths(const char* variable, std::vector<std::size_t> otherwise) {
    std::vector<std::size_t> l;
    std::istringstream text(std::getenv(variable) ? std::getenv(variable) : "");
    for (std::size_t n; text >> n;) l.push_back(n);
    return l.empty() ? otherwise : l;
}

template <int Longest>
auto ids() { return ctf::id_input<"input_ids", ctf::batch, ctf::upto<Longest>>(); }
template <int Longest>
auto mask() { return ctf::bool_input<"attention_mask", ctf::batch, ctf::upto<Longest>>(); }

auto bert_pooled() { return nn::bert_pooler<nn::bert_base>(nn::bert<nn::bert_base>(ids<128>(), mask<128>())); }
auto minilm_sentences() { return nn::sentence_embedding(nn::bert<nn::minilm_l6>(ids<64>(), mask<64>()), mask<64>()); }

// The graph run on a batch of these lengths, padded to the longest allowed or packed by its lengths.
template <class Graph>
void run(benchmark::State& state, const Graph& graph, const std::vector<std::size_t>& l, std::size_t longest, bool mixed) {
    const int threads = static_cast<int>(state.range(0));
    auto model = ctf::compile(graph);
    const ctf::extent_values at{l.size(), {longest}};
    ctf::tensor_map inputs = ctf::reference::random_inputs(graph, at);
    const ctf::id_map ids = ctf::reference::random_ids(graph, at, 30522);
    for (std::size_t b = 0; b < l.size(); ++b)
        std::fill_n(inputs.at("attention_mask").data.begin() + b * longest + l[b], longest - l[b], 0.0f);
    model.bind(inputs);
    ctf::host_tensor<float> output;
    const ctformer::runtime::run_options options{.threads = threads, .lengths = mixed ? l : std::vector<std::size_t>{}};
    for (auto _ : state) {
        model.run(inputs, ids, output, options);
        benchmark::DoNotOptimize(output.data.data());
    }
    double real_work = 0;
    for (std::size_t n : l) real_work += model.program().flops({1, {n}});
    state.counters["GFLOP/s"] = gflops(real_work);
    state.counters["sequences/s"] = benchmark::Counter(double(l.size()), benchmark::Counter::kIsIterationInvariantRate);
}

const std::vector<std::size_t> bert_lengths = lengths("CTFORMER_BERT_LENGTHS", {77, 20, 119, 53, 128, 16, 98, 41});
const std::vector<std::size_t> minilm_lengths = lengths("CTFORMER_MINILM_LENGTHS", std::vector<std::size_t>(64, 36));

void bert(benchmark::State& state, bool mixed) { run(state, bert_pooled(), bert_lengths, 128, mixed); }
void sentences(benchmark::State& state, bool mixed) { run(state, minilm_sentences(), minilm_lengths, 64, mixed); }
void single(benchmark::State& state) { run(state, minilm_sentences(), {16}, 16, false); }
}  // namespace

BENCHMARK_CAPTURE(bert, padded, false)->Name("padded/bert/pooled")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK_CAPTURE(bert, mixed, true)->Name("mixed/bert/pooled")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK_CAPTURE(sentences, padded, false)->Name("padded/minilm/sentences")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK_CAPTURE(sentences, mixed, true)->Name("mixed/minilm/sentences")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();
BENCHMARK(single)->Name("minilm/single16")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime();

BENCHMARK_MAIN();
