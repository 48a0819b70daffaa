// A decoding step's plan and profile (ctformer/inspect/decoding.hpp), compiled once for every model.
#include <ctformer/inspect/decoding.hpp>

#include <ctformer/inspect/plan_text.hpp>

namespace ctformer {

decoding_work decoding_work_of(const plan::program& p, const plan::cache_layout& cache, std::size_t k,
                               const plan::extent_values& at, kernels::precision format) {
    const plan::step& s = p.steps[k];
    const double iterations = s.repeat < 0 ? 1 : p.repeats[s.repeat].count;
    double cached = 0;
    for (std::size_t t = 0; t < cache.tokens(at); ++t) cached += cache.bytes_read(k, at.position + t) * double(at.batch);
    return {s.flops(at) * iterations, p.bytes_moved(k, at, format) * iterations + cached, cached};
}

decoding_work decoding_work_of(const plan::program& p, const plan::cache_layout& cache,
                               const plan::extent_values& at, kernels::precision format) {
    decoding_work total;
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const decoding_work w = decoding_work_of(p, cache, k, at, format);
        total = {total.flops + w.flops, total.bytes + w.bytes, total.cached + w.cached};
    }
    return total;
}

std::string decoding_profile(const plan::program& p, const plan::cache_layout& cache,
                             const std::vector<plan::step_record>& records, const plan::extent_values& at,
                             double peak_gflops, int threads, std::string_view target, const gemm_units& gemms) {
    std::vector<double> bytes(p.steps.size());
    for (std::size_t k = 0; k < p.steps.size(); ++k) bytes[k] = decoding_work_of(p, cache, k, at, gemms.precision).bytes;
    return profile_table(p, records, at, peak_gflops, threads, target, gemms, bytes);
}

std::string decoding_table(const plan::program& p, const plan::cache_layout& cache, std::size_t position,
                           plan::extent_values at, std::string_view target, const gemm_units& gemms) {
    const kernels::precision format = gemms.precision;
    using detail::format_row;
    at.position = position;
    const double tokens = double(cache.tokens(at) * at.batch);
    std::string text = format_row("== decoding step (%s, GEMMs %s): %s at position %zu of %zu ==\n",
                           std::string(target).c_str(), kernels::unit_name(gemms.unit), p.extents_text(at).c_str(),
                           at.position, cache.capacity());
    text += format_row("%-3s %-32s %-16s %10s %10s  %s\n", "#", "kernel", "shape", "MFLOP", "MB moved", "details");
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const plan::step& s = p.steps[k];
        const decoding_work w = decoding_work_of(p, cache, k, at, format);
        const std::string detail = s.repeat < 0 ? s.detail : "×" + std::to_string(p.repeats[s.repeat].count) + " " + s.detail;
        text += format_row("%-3zu %-32s %-16s %10.3f %10.3f  %s\n", k, ((s.repeat >= 0 ? "  " : "") + s.kernel).c_str(),
                           p.slots[s.writes].shape_text().c_str(), w.flops / 1e6, w.bytes / 1e6, detail.c_str());
    }
    const decoding_work total = decoding_work_of(p, cache, at, format);
    return text + format_row("per token: %.3f MFLOP, %.3f MB moved (%.3f MB of them cached keys and values); "
                             "the cache holds %.2f MiB\n",
                             total.flops / 1e6 / tokens, total.bytes / 1e6 / tokens, total.cached / 1e6 / tokens,
                             double(cache.bytes()) / 1048576.0);
}

}  // namespace ctformer
