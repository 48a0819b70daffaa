// ctformer-run: a PyTorch encoder layer (or stack), saved with its state_dict names as .safetensors,
// run by ctformer on an input .npy; or, with --model, a whole BERT-family model from its Hugging Face
// folder run on token ids (model_dir.hpp). The batch and sequence length come from the input: any
// length up to the configuration's longest runs as it is, nothing padded.
//   ctformer-run --weights layer.safetensors --input x.npy --output y.npy
//   ctformer-run --model all-MiniLM-L6-v2 --input-ids ids.npy --attention-mask mask.npy --sentence-embedding --output e.npy
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <new>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <ctformer/runtime/npy.hpp>
#include <ctformer/core/parallel.hpp>
#include <ctformer/runtime/state_dict.hpp>

#include "configurations.hpp"
#include "memory.hpp"
#include "model_dir.hpp"
#include "outputs.hpp"

namespace ctf = ctformer;

namespace {

constexpr std::string_view usage = R"(usage:
  ctformer-run --weights W.safetensors --input X.npy --output Y.npy [--config NAME]
               [--attention-weights A.npy] [--threads N] [--precision P] [--explain] [--profile]
  ctformer-run --model DIR --input-ids IDS.npy --output Y.npy [--attention-mask M.npy]
               [--token-type-ids T.npy] [--pooler | --sentence-embedding] [--threads N] [--precision P]
               [--explain] [--profile]
  ctformer-run --explain [--config NAME | --model DIR]

  --weights F             the model's state_dict (PyTorch names; F32, F16 or BF16)
  --input F               x as float32 .npy: [batch, length, d_model] (batch_first) or [length, d_model]
  --output F              where y goes: float32 .npy of the input's shape (--model: see below)
  --config NAME           the model (default seeds-layer), see below
  --attention-weights F   also write the per-head attention weights [batch, heads, length, length]
                          (single-layer configurations)
  --threads N             threads to run on (default: every hardware thread)
  --precision P           the GEMMs' precision: fp32 (the default) or bf16 (weights and GEMM inputs
                          rounded to bf16, sums in fp32; AVX512-BF16's dot products where the CPU
                          has them, --profile names them)
  --non-strict            bind weights the model does not read without complaint (strict, the
                          default, refuses them, as PyTorch's load_state_dict does)
  --explain               print the tree before and after each fusion pass, and the plan of kernels
  --profile               print each step's time, GFLOP/s, bytes moved and share of the FMA peak

  --model DIR             a Hugging Face BERT-family folder: DIR/config.json, whose sizes must be one of
                          the models below, and DIR/model.safetensors (or its shards and
                          model.safetensors.index.json); BertModel's names, or a model with a head's
                          (bert.*, roberta.*); F32, F16 or BF16. Strict: a tensor the model does not
                          read (cls.predictions.* of a pretraining checkpoint) is refused by name
  --input-ids F           token ids, int32 or int64 .npy [batch, length]
  --attention-mask F      1 for a real token, 0 for padding; bool, integer or float32 .npy [batch, length]
                          (default: all ones). With right padding, --pooler and --sentence-embedding
                          run each sequence at its own length, the padding never computed
  --token-type-ids F      int32 or int64 .npy [batch, length] (default: type 0 everywhere)
  --pooler                write the pooler output [batch, d_model], tanh(pooler.dense(h[:, 0]))
  --sentence-embedding    write sentence embeddings [batch, d_model]: the real tokens' mean hidden
                          state, L2-normalised (sentence-transformers)
                          Without either: the last hidden state [batch, length, d_model], every row
                          computed as BertModel returns it, the padding's too

configurations (each runs any length from 1 to its longest, as it is):
)";

struct arguments {
    std::string weights, input, output, attention_weights, threads, config, precision;
    std::string model, input_ids, attention_mask, token_type_ids;  // --model
    bool explain = false, profile = false, help = false, non_strict = false, pooler = false, sentence_embedding = false;
};

// A mistake on the command line: printed with the usage; exit status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

arguments parse(std::span<char*> args) {
    arguments a;
    const std::map<std::string_view, std::string*> values{
        {"--weights", &a.weights}, {"--input", &a.input},   {"--output", &a.output},
        {"--config", &a.config},   {"--threads", &a.threads}, {"--attention-weights", &a.attention_weights},
        {"--precision", &a.precision},
        {"--model", &a.model},     {"--input-ids", &a.input_ids}, {"--attention-mask", &a.attention_mask},
        {"--token-type-ids", &a.token_type_ids}};
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string arg = args[i];
        if (arg == "--explain") {
            a.explain = true;
        } else if (arg == "--profile") {
            a.profile = true;
        } else if (arg == "--non-strict") {
            a.non_strict = true;
        } else if (arg == "--pooler") {
            a.pooler = true;
        } else if (arg == "--sentence-embedding") {
            a.sentence_embedding = true;
        } else if (arg == "--help" || arg == "-h") {
            a.help = true;
        } else if (const auto found = values.find(arg); found != values.end()) {
            if (i + 1 == args.size()) throw usage_error(arg + " needs a value");
            *found->second = args[++i];
        } else {
            throw usage_error("unknown argument '" + arg + "'");
        }
    }
    return a;
}

int thread_count(const std::string& text) {
    if (text.empty()) return 0;
    std::size_t used = 0;
    int n = -1;
    try {
        n = std::stoi(text, &used);
    } catch (const std::logic_error&) {
    }
    if (used != text.size() || n < 1 || n > ctf::most_threads())
        throw usage_error("--threads needs a whole number from 1 to " + std::to_string(ctf::most_threads()) +
                          " (4 per hardware thread), not '" + text + "'");
    return n;
}

ctf::kernels::precision precision_of(const std::string& text) {
    if (text.empty() || text == "fp32") return ctf::kernels::precision::fp32;
    if (text == "bf16") return ctf::kernels::precision::bf16;
    throw usage_error("--precision is fp32 or bf16, not '" + text + "'");
}

const run::configuration& find_configuration(const std::string& name) {
    for (const run::configuration& c : run::configurations)
        if (c.name == name) return c;
    throw usage_error("unknown configuration '" + name + "'");
}

void print_usage(std::ostream& out) {
    out << usage;
    for (const run::configuration& c : run::configurations)
        out << "  " << c.name << std::string(18 - c.name.size(), ' ') << c.about << "; length up to " << c.sequence
            << "\n" << std::string(20, ' ') << ctf::fields::words(ctf::nn::config_fields, c.hyper) << "\n";
    out << "\nmodels (--model DIR: DIR/config.json gives these sizes; any other is built with the\n"
           "ctformer_add_model(NAME HF_CONFIG DIR/config.json ...) line the error prints; length up to 512):\n";
    run::print_model_geometries(out);
}

// x as [batch, length, d_model]; throws a file_error naming the file unless it fits the configuration.
ctf::host_tensor<float> batched_input(ctf::host_tensor<float> x, const run::configuration& c, const std::string& file) {
    const ctf::dims_t& d = x.dims;
    const std::size_t width = static_cast<std::size_t>(c.hyper.d_model);
    const bool fits = (d.size() == 2 || d.size() == 3) && d.back() == width && d[d.size() - 2] >= 1 &&
                      d[d.size() - 2] <= c.sequence && d.front() >= 1;
    if (!fits)
        throw ctf::file_error(file, "", "shape " + ctf::to_string(d) + ", expected [batch, length, " +
                                            std::to_string(width) + "] or [length, " + std::to_string(width) +
                                            "] with length 1 to " + std::to_string(c.sequence) +
                                            " (configuration " + std::string(c.name) + ")");
    if (d.size() == 2) x.dims.insert(x.dims.begin(), 1);
    return x;
}

// t as written: without the batch dimension when the input had none.
ctf::host_tensor<float> as_given(ctf::host_tensor<float> t, bool batched) {
    if (!batched) t.dims.erase(t.dims.begin());
    return t;
}

std::string mebibytes(std::size_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }

// Before the weights are read and any work done: the run (its activations, scratch and output) and
// the weights (read, then bound and packed: about three times the file) must fit what is left.
void refuse_what_cannot_fit(const ctf::any_model& model, const arguments& a, const ctf::extent_values& at, int threads) {
    std::error_code error;
    const std::size_t file = std::filesystem::is_regular_file(a.weights, error) ? std::filesystem::file_size(a.weights) : 0;
    const std::size_t run = model.run_bytes(at, threads), needed = run + 3 * file, available = run::available_memory();
    if (needed > available)
        throw ctf::file_error(a.input, "", "a run of this input needs about " + mebibytes(needed) + " (" + mebibytes(run) +
                                               " for the run, " + mebibytes(3 * file) + " for the weights), and " +
                                               mebibytes(available) + " are available");
}

// The weights bound as the file names them. A name the model reads that the file holds in a dtype
// other than a float one (I32, I64: ids, no weights) is named with its dtype, not said to be
// missing; a strict refusal of tensors the model does not read names --non-strict.
void bind_weights(ctf::any_model& model, const arguments& a) {
    std::map<std::string, std::string, std::less<>> dtypes;
    ctf::tensor_map weights;
    {
        const ctf::safetensors_file file(a.weights);
        for (const auto& [name, entry] : file.entries()) dtypes.emplace(name, entry.dtype);
        weights = ctf::split_in_projections(file.tensors());
    }
    try {
        model.bind(weights, {.strict = !a.non_strict, .precision = precision_of(a.precision)});
    } catch (const ctf::missing_tensor& e) {
        if (const auto found = dtypes.find(e.tensor()); found != dtypes.end())
            throw ctf::file_error(a.weights, e.tensor(), "dtype " + found->second + " is not a floating-point type (F32, F16 or BF16)");
        throw;
    } catch (const ctf::unexpected_tensor& e) {
        throw ctf::file_error(a.weights, "", std::to_string(e.names().size()) + " tensor(s) the model does not read: " +
                                                 ctf::unexpected_tensor::joined(e.names()) + " (run with --non-strict to allow it)");
    }
}

// --model DIR's arguments, checked: none of the --weights form's, the ids and an output.
run::model_request model_request(const arguments& a) {
    for (const auto& [given, option] : {std::pair{&a.weights, "--weights"}, {&a.input, "--input"}, {&a.config, "--config"},
                                        {&a.attention_weights, "--attention-weights"}})
        if (!given->empty()) throw usage_error(std::string(option) + " is not taken with --model (a model's ids are --input-ids)");
    if (a.pooler && a.sentence_embedding) throw usage_error("--pooler and --sentence-embedding: one result at a time");
    if (!a.explain && (a.input_ids.empty() || a.output.empty()))
        throw usage_error("--model needs --input-ids and --output (or --explain alone)");
    if (!a.input_ids.empty() && a.output.empty()) throw usage_error("--input-ids needs --output");
    run::model_request r{.dir = a.model, .input_ids = a.input_ids, .attention_mask = a.attention_mask,
                         .token_type_ids = a.token_type_ids, .output = a.output,
                         .threads = thread_count(a.threads), .precision = precision_of(a.precision), .non_strict = a.non_strict, .explain = a.explain,
                         .profile = a.profile};
    r.result = a.pooler               ? run::model_result::pooler
               : a.sentence_embedding ? run::model_result::sentence_embedding
                                      : run::model_result::hidden_state;
    return r;
}

int run_model(const arguments& a) {
    if (!a.model.empty()) return run::run_model_dir(model_request(a));
    for (const auto& [given, option] : {std::pair{&a.input_ids, "--input-ids"}, {&a.attention_mask, "--attention-mask"},
                                        {&a.token_type_ids, "--token-type-ids"}})
        if (!given->empty()) throw usage_error(std::string(option) + " is taken with --model DIR");
    if (a.pooler || a.sentence_embedding) throw usage_error("--pooler and --sentence-embedding are taken with --model DIR");
    const run::configuration& c = find_configuration(a.config.empty() ? "seeds-layer" : a.config);
    const bool keep_weights = !a.attention_weights.empty();
    if (keep_weights && !c.make_with_weights)
        throw usage_error("--attention-weights: configuration " + std::string(c.name) + " has more than one layer");
    const int threads = thread_count(a.threads);
    const auto model = keep_weights ? c.make_with_weights() : c.make();
    if (a.input.empty() && a.explain) {
        std::cout << model->explain(1);
        return 0;
    }
    if (a.weights.empty() || a.input.empty() || a.output.empty())
        throw usage_error("--weights, --input and --output are needed (or --explain alone)");
    run::output_files outputs({a.output, a.attention_weights}, {a.weights, a.input});

    ctf::host_tensor<float> input = ctf::read_npy(a.input);
    const bool batched = input.dims.size() == 3;
    ctf::host_tensor<float> x = batched_input(std::move(input), c, a.input);
    const ctf::extent_values at{x.dims[0], {x.dims[1]}};
    refuse_what_cannot_fit(*model, a, at, threads);
    bind_weights(*model, a);
    ctf::tensor_map inputs;
    inputs.emplace("x", std::move(x));
    ctf::host_tensor<float> y, weights;
    std::vector<ctf::runtime::step_record> records;
    ctf::runtime::run_options options{.threads = threads, .profile = a.profile ? &records : nullptr};
    if (keep_weights) options.keep = {{std::string(run::attention_weights_name), &weights}};
    const auto start = std::chrono::steady_clock::now();
    model->run(inputs, y, options);
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;

    const ctf::host_tensor<float> output = as_given(std::move(y), batched);
    ctf::write_npy(outputs.path_for(a.output), output);
    if (keep_weights) ctf::write_npy(outputs.path_for(a.attention_weights), as_given(std::move(weights), batched));
    outputs.commit();
    if (a.explain) std::cout << model->explain(at);
    if (a.profile) std::cout << model->profile(records, at, threads);
    std::cout << c.name << ": " << a.input << " " << ctf::to_string(output.dims) << " -> " << a.output << " in "
              << took.count() << " ms\n";
    return 0;
}

// `status`, unless what was printed (--explain, --profile, --help) could not all be written.
int printed(int status) {
    errno = 0;
    std::cout.flush();
    if (std::cout) return status;
    std::cerr << "ctformer-run: the standard output cannot be written" << (errno ? std::string(": ") + std::strerror(errno) : "")
              << "\n";
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const arguments a = parse(std::span<char*>(argv + 1, static_cast<std::size_t>(argc - 1)));
        if (a.help) {
            print_usage(std::cout);
            return printed(0);
        }
        return printed(run_model(a));
    } catch (const usage_error& e) {
        std::cerr << "ctformer-run: " << e.what() << "\n\n";
        print_usage(std::cerr);
        return 2;
    } catch (const std::bad_alloc&) {
        std::cerr << "ctformer-run: out of memory\n";
        return 1;
    } catch (const std::exception& e) {  // "ctformer: FILE: what is wrong", printed with one prefix
        const std::string_view what = e.what(), library = "ctformer: ";
        std::cerr << "ctformer-run: " << (what.starts_with(library) ? what.substr(library.size()) : what) << "\n";
        return 1;
    }
}
