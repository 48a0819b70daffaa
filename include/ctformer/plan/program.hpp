// The plan of a compiled model, and the program it runs: an ordered list of steps over slots.
//
//   slot   a value: an input, a weight, a constant table, an activation the steps write, the result
//   step   one kernel call: what it reads (slots, by role), what it writes (a slot), its shape,
//          FLOPs and scratch, the weights it packs at bind time, and the function that launches it
//   repeat a run of steps that is executed `count` times, iteration i reading its weights under
//          prefix + i + "." (nn::encoder's layers): one body in the plan, whatever the depth
//
// Lowering (lowering-inl.h) makes it from the fused graph; the executor (runtime/run.hpp) runs
// exactly this list; explain(), the DOT picture and the generator print or emit it. Each kernel's
// facts (name, FLOP formula, scratch, launch) are written once, in plan/steps/.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "../dsl/repeat.hpp"
#include "../kernels/gemm.hpp"
#include "../shape/ragged.hpp"

namespace ctformer::plan {

using slot_id = std::size_t;
inline constexpr slot_id no_slot = static_cast<slot_id>(-1);

using ctformer::extent_values;  // the run-time batch and lengths (shape/shape.hpp)

enum class slot_kind {
    input,     // given by name in run()'s inputs
    weight,    // bound by name (under its repeat's prefix), read in place
    constant,  // a table known at compile time (the positional encoding)
    value,     // written by a step, in the workspace
    result,    // the graph's result: the caller's output tensor
    carried,   // a repeat body's input: the argument, then the previous iteration's output
};

struct slot {
    std::string name;          // a binding's or tensor's name (relative to its repeat), or "#k" for step k's
    slot_kind kind = slot_kind::value;
    std::vector<int> extents;  // declared extents: static, the batch (-1) or a length (upto<N>)
    int repeat = -1;           // the repeat whose body it belongs to, or -1
    const float* constant = nullptr;  // a constant's values
    dtype element = dtype::f32;       // i32: token ids (an id_input), given in run()'s id_map

    std::size_t elements(const extent_values& at) const { return at.elements(extents); }
    std::string shape_text() const { return extents_text(extents); }  // "[B,_10,_512]", "[B,L<=512,_512]"
};

// A weight a step packs at bind time (a GEMM's W or bias): one tensor, or several stacked along
// their first axis (fuse_qkv's [Wq|Wk|Wv]), each as it is or transposed; names relative to the
// step's repeat.
struct packed_use {
    std::vector<std::string> parts;
    std::vector<std::vector<int>> part_extents;  // as declared (and stored)
    std::vector<bool> part_transposed;           // stored [in, out] (a Conv1D's), transposed when packed
};

// What a step reads, by role: the step's launch finds it by that role (launch_args::read), and
// explain(), the DOT picture and the profile name it so.
struct operand_slot {
    std::string_view role;  // "a", "residual", "q", "k", "v", "key_padding", "gamma", ...
    slot_id slot;
    bool gathered = false;  // rows picked by index (an embedding's table): it moves the rows it takes
};

struct step;

// A cached attention step's keys and values of earlier positions in a decoding run
// (runtime/kv_cache.hpp): per sequence, step::cache_floats(capacity) floats.
struct cache_block {
    float* data = nullptr;  // the chunk's first sequence's
    std::size_t capacity = 0;
};

// What a step's launch is given: its operands' memory (read(role)), its output, its packed weights
// (step::packed, packed together), the run's extents, threads and scratch, and in a decoding run
// its cache (data null otherwise).
struct launch_args {
    std::span<const operand_slot> operands;  // step::reads
    const float* const* memory;              // each operand's, in that order
    float* out;
    const kernels::packed_weight* packed;
    extent_values extents;
    int threads;
    std::byte* const* scratch;  // one block of step::scratch_bytes per thread
    cache_block cache = {};

    // The memory of the operand with `role`; null where the step has none (a layer norm's residual).
    const float* read(std::string_view role) const {
        for (std::size_t i = 0; i < operands.size(); ++i)
            if (operands[i].role == role) return memory[i];
        return nullptr;
    }
    template <class T>
    const T* read_as(std::string_view role) const {  // token ids
        return reinterpret_cast<const T*>(read(role));
    }
};

struct step {
    std::string kernel;  // "gemm", "fused_attention (heads merged)"
    std::string detail;  // its parameters: "epilogue: +bias relu", "scale=0.125 causal"
    std::vector<operand_slot> reads;
    std::vector<packed_use> packed;
    slot_id writes = no_slot;
    int repeat = -1;
    std::size_t scratch_bytes = 0;  // per thread, in this target's layout
    bool mixed_lengths = false;     // it runs a packed mixed-length batch (shape/ragged.hpp)
    // It runs in a decoding run, the new tokens at extents.position: token by token (a GEMM), at
    // their positions (an embedding), or over the cache (causal self-attention, cache_floats set).
    bool decodes = false;
    std::size_t (*cache_floats)(std::size_t capacity) = nullptr;  // per sequence
    std::size_t (*cache_floats_read)(std::size_t visible) = nullptr;  // per sequence, by a query seeing `visible`
    double (*flops_of)(const extent_values&) = nullptr;
    void (*launch)(const step&, const launch_args&) = nullptr;
    // Packs W [N, K] (and the bias) for this target in a format, when the step has packed weights.
    kernels::packed_weight (*pack)(const float* w, const float* bias, kernels::precision format) = nullptr;
    const void* node = nullptr;  // the fused node it computes: its compile-time shapes and parameters

    // Floating-point operations for a run of `at`; a packed mixed-length batch's, sequence by sequence,
    // each from its own position.
    double flops(const extent_values& at) const {
        if (!at.ragged) return flops_of(at);
        double total = 0;
        for (std::size_t q = 0; q < at.ragged->sequences(); ++q) {
            extent_values one{1, {at.ragged->length(q)}};
            one.position = at.ragged->starts[q];
            total += flops_of(one);
        }
        return total;
    }
};

// One step as it ran (run_options::profile collects them): its index in the plan, its repeat's
// iteration (-1 outside one), its time.
struct step_record {
    std::size_t step;
    int iteration;
    double seconds;
};

struct repeat_block {
    std::string prefix;  // "layers."
    int count = 0;
    std::size_t first = 0, end = 0;  // steps [first, end)
    slot_id argument = no_slot;      // fed to iteration 0
    slot_id input = no_slot;         // the body's input (carried)
    slot_id output = no_slot;        // what the body's last step writes (carried)
    slot_id value = no_slot;         // the last iteration's output, the repeat's value
    slot_id spare = no_slot;         // the other buffer iterations alternate with

    std::string prefix_of(int iteration) const { return iteration_prefix(prefix, iteration); }  // "layers.3."
    std::string label() const { return repeat_label(prefix, count); }  // "×6 (layers.0. … layers.5.)"
};

struct program {
    std::vector<slot> slots;
    std::vector<step> steps;
    std::vector<repeat_block> repeats;
    slot_id result = no_slot;

    // The threads step k runs on in a run of `at` on `threads`: all of them, or one for a step too
    // small to pay for forking the others, its FLOPs and the values it writes under kThreadedWork
    // (the seeds' attention and LayerNorms ran faster on one thread: docs/performance.md). Attention
    // over a KV cache is bound by the cache it reads, not by either: it takes them all.
    static constexpr double kThreadedWork = 1e6;
    int threads_of(std::size_t k, const extent_values& at, int threads) const {
        const step& s = steps[k];
        const double work = s.flops(at) + double(slots[s.writes].elements(at));
        return s.cache_floats || work >= kThreadedWork ? threads : 1;
    }

    // Every step in the order it runs, f(step index, iteration; -1 outside a repeat).
    template <class F>
    void for_each_run(F f) const {
        for (std::size_t k = 0; k < steps.size();) {
            if (steps[k].repeat < 0) {
                f(k++, -1);
                continue;
            }
            const repeat_block& r = repeats[steps[k].repeat];
            for (int i = 0; i < r.count; ++i)
                for (std::size_t j = r.first; j < r.end; ++j) f(j, i);
            k = r.end;
        }
    }

    // Floating-point operations of one run, repeated steps counted each time.
    double flops(const extent_values& at) const {
        double total = 0;
        for_each_run([&](std::size_t k, int) { total += steps[k].flops(at); });
        return total;
    }

    // The most per-thread scratch any step needs.
    std::size_t scratch_bytes() const {
        std::size_t most = 0;
        for (const step& s : steps) most = std::max(most, s.scratch_bytes);
        return most;
    }

    // "B=2", "B=2, L=10": the batch and the lengths of the variables the program declares.
    std::string extents_text(const extent_values& at) const {
        std::vector<int> shown;
        std::string text = "B=";  // appended to, not "B=" + ...: GCC 12 warns falsely (-Wrestrict) on that
        text += std::to_string(at.batch);
        for (const slot& v : slots)
            for (int e : v.extents)
                if (is_length(e) && std::find(shown.begin(), shown.end(), length_variable(e)) == shown.end()) {
                    shown.push_back(length_variable(e));
                    text += ", ";
                    text += length_name(e);
                    text += '=';
                    text += std::to_string(at.of(e));
                }
        return text;
    }

    // The bytes step k reads and writes at the least in a run of `at`: each slot it reads once (of
    // one it gathers from, the rows it takes), its output, and the weights it packed: W as bound
    // (`format`), its bias in fp32.
    double bytes_moved(std::size_t k, const extent_values& at,
                       kernels::precision format = kernels::precision::fp32) const {
        const step& s = steps[k];
        std::vector<slot_id> seen;
        const double written = double(slots[s.writes].elements(at));
        double floats = written;
        for (const operand_slot& o : s.reads) {
            if (std::find(seen.begin(), seen.end(), o.slot) != seen.end()) continue;
            seen.push_back(o.slot);
            const double read = double(slots[o.slot].elements(at));
            floats += o.gathered ? std::min(written, read) : read;
        }
        double packed = 0;
        for (std::size_t u = 0; u < s.packed.size(); ++u)
            for (const std::vector<int>& extents : s.packed[u].part_extents)
                packed += double(at.elements(extents)) * (u == 0 ? kernels::element_bytes(format) : sizeof(float));
        return floats * sizeof(float) + packed;
    }

    // A slot's name as a reader sees it: "layers.{i}.norm1" for a slot of a repeat body.
    std::string display_name(slot_id s) const {
        const slot& v = slots[s];
        return v.repeat < 0 ? v.name : repeats[v.repeat].prefix + "{i}." + v.name;
    }
};

}  // namespace ctformer::plan
