// The plan as text (ctformer/inspect/plan_text.hpp), compiled once for every model.
#include <ctformer/inspect/plan_text.hpp>

#include <algorithm>
#include <vector>

#include <ctformer/plan/allocation.hpp>

namespace ctformer {

namespace detail {
std::string mebibytes(std::size_t bytes) { return format_row("%.2f MiB", bytes / 1048576.0); }

std::string table_name(const plan::program& p, plan::slot_id s) { return p.slots[s].name; }

std::string reads_text(const plan::program& p, const plan::step& s, std::string (*name)(const plan::program&, plan::slot_id)) {
    std::vector<plan::slot_id> seen;
    std::string text;
    for (const plan::operand_slot& o : s.reads) {
        if (p.slots[o.slot].kind == plan::slot_kind::weight || std::find(seen.begin(), seen.end(), o.slot) != seen.end())
            continue;
        seen.push_back(o.slot);
        if (!text.empty()) text += ' ';
        text += name(p, o.slot);
    }
    return text.empty() ? "-" : text;
}
}  // namespace detail

std::string memory_text(const plan::program& p, const plan::extent_values& at) {
    const plan::run_memory m = plan::memory_of_run(p, at, plan::default_max_activation_bytes);
    const std::string chunks = m.chunk < at.batch ? ", in chunks of " + std::to_string(m.chunk) + " sequences" : "";
    return detail::format_row("activations %s for %s (value slots reused once dead%s); scratch %zu KiB per thread; "
                              "output %s\n",
                              detail::mebibytes(m.activations).c_str(), p.extents_text(at).c_str(), chunks.c_str(),
                              (m.scratch_per_thread + 1023) / 1024, detail::mebibytes(m.output).c_str());
}

std::string plan_table(const plan::program& p, const plan::extent_values& at) {
    using detail::format_row;
    std::string text = format_row("%-3s %-32s %-16s %-42s %-28s %10s %11s  %s\n", "#", "kernel", "shape", "reads",
                                  "writes", "MFLOP", "scratch", "details");
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const plan::step& s = p.steps[k];
        const bool body = s.repeat >= 0;
        if (body && k == p.repeats[s.repeat].first)
            text += "    " + p.repeats[s.repeat].label() + ", each reading " + p.repeats[s.repeat].prefix +
                    "{i}.* weights; input = " + p.display_name(p.repeats[s.repeat].argument) +
                    ", then the previous iteration's output:\n";
        const std::string scratch = s.scratch_bytes ? std::to_string((s.scratch_bytes + 1023) / 1024) + " KiB/thr" : "-";
        text += format_row("%-3zu %-32s %-16s %-42s %-28s %10.3f %11s  %s\n", k, ((body ? "  " : "") + s.kernel).c_str(),
                           p.slots[s.writes].shape_text().c_str(), detail::reads_text(p, s).c_str(),
                           detail::table_name(p, s.writes).c_str(), s.flops(at) / 1e6, scratch.c_str(), s.detail.c_str());
        if (body && k + 1 == p.repeats[s.repeat].end)
            text += "    (end of " + p.repeats[s.repeat].label() + "; the last iteration's output is " +
                    p.display_name(p.repeats[s.repeat].value) + ")\n";
    }
    return text + format_row("total %.3f MFLOP for %s\n", p.flops(at) / 1e6, p.extents_text(at).c_str()) + memory_text(p, at);
}

std::string plan_text(const plan::program& p, const plan::extent_values& at, std::string_view target) {
    return "== plan (" + std::string(target) + ") ==\n" + plan_table(p, at);
}

}  // namespace ctformer
