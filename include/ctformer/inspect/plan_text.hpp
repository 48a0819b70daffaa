// The plan of a compiled model as text (plan_text): each step's kernel, shape, the slots it reads and
// writes, MFLOP and scratch, a repeat's body once under its label; then the total work and the peak
// activation memory of a run of that batch. explain() prints it after the pass trace; profile and
// decoding tables share its rows. Compiled once, in the ctformer library (src/inspect/plan_text.cpp).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "../plan/program.hpp"

namespace ctformer {

namespace detail {
inline std::string format_row(const char* format, auto... values) {
    char line[512];
    std::snprintf(line, sizeof line, format, values...);
    return line;
}

std::string mebibytes(std::size_t bytes);

// A slot's name in the plan's table: a repeat body's as the body calls it, under the body's heading.
std::string table_name(const plan::program& p, plan::slot_id s);

// The slots a step reads, each once, weights left out (they are bound, not computed).
std::string reads_text(const plan::program& p, const plan::step& s,
                       std::string (*name)(const plan::program&, plan::slot_id) = table_name);
}  // namespace detail

// What a run of that batch needs besides its inputs and weights (run_options' default chunking).
std::string memory_text(const plan::program& p, const plan::extent_values& at);

// The program's table for a run of extents `at`.
std::string plan_table(const plan::program& p, const plan::extent_values& at);

// The plan of `target`'s program under its heading.
std::string plan_text(const plan::program& p, const plan::extent_values& at, std::string_view target);

}  // namespace ctformer
