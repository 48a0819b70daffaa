// Where a run's time went (ctformer/inspect/profile.hpp), compiled once for every model.
#include <ctformer/inspect/profile.hpp>

#include <ctformer/core/exceptions.hpp>
#include <ctformer/inspect/plan_text.hpp>

namespace ctformer {

std::string profile_table(const plan::program& p, const std::vector<plan::step_record>& records,
                          const plan::extent_values& at, double peak_gflops, int threads, std::string_view target,
                          const gemm_units& gemms, const std::vector<double>& step_bytes) {
    using detail::format_row;
    std::vector<double> seconds(p.steps.size());
    std::vector<std::size_t> runs(p.steps.size());
    for (const plan::step_record& r : records) {
        if (r.step >= p.steps.size())
            throw error("ctformer: a profile record of step " + std::to_string(r.step) + ", of a plan of " +
                        std::to_string(p.steps.size()) + " steps: the records are of another model");
        seconds[r.step] += r.seconds;
        ++runs[r.step];
    }
    const bool fp32 = gemms.unit == kernels::gemm_unit::fp32;
    const double gemm_peak = gemms.peak_gflops > 0 ? gemms.peak_gflops : peak_gflops;
    const std::string gemm_note = fp32 ? "" : format_row(", GEMMs %s at a peak of %.1f", kernels::unit_name(gemms.unit), gemm_peak);
    std::string text = format_row("== profile (%.*s, %s, FMA peak %.1f GFLOP/s%s) ==\n", int(target.size()),
                           target.data(), p.extents_text(at).c_str(), peak_gflops, gemm_note.c_str());
    text += format_row("%-3s %-32s %-16s %5s %10s %9s %10s %8s %7s\n", "#", "kernel", "shape", "runs", "ms",
                       "GFLOP/s", "MB moved", "GB/s", "% peak");
    double total_seconds = 0, total_flops = 0;
    for (std::size_t k = 0; k < p.steps.size(); ++k) {
        const plan::step& s = p.steps[k];
        const int iterations = s.repeat < 0 ? 1 : p.repeats[s.repeat].count;
        const double flops = s.flops(at) * iterations, t = seconds[k];
        const double bytes = step_bytes.empty() ? p.bytes_moved(k, at, gemms.precision) * iterations : step_bytes[k];
        const double gflops = t > 0 ? flops / t / 1e9 : 0;
        const bool gemm = s.pack != nullptr;
        const double peak = (gemm ? gemm_peak : peak_gflops) / threads * p.threads_of(k, at, threads);  // of the cores it ran on
        const std::string kernel = (s.repeat >= 0 ? "  " : "") + s.kernel + (gemm && !fp32 ? std::string(" ") + kernels::unit_name(gemms.unit) : "");
        total_seconds += t;
        total_flops += flops;
        text += format_row("%-3zu %-32s %-16s %5zu %10.3f %9.1f %10.2f %8.1f %6.1f%%\n", k,
                           kernel.c_str(), p.slots[s.writes].shape_text().c_str(),
                           runs[k], t * 1e3, gflops, bytes / 1e6, t > 0 ? bytes / t / 1e9 : 0.0,
                           peak > 0 ? 100 * gflops / peak : 0.0);
    }
    const double gflops = total_seconds > 0 ? total_flops / total_seconds / 1e9 : 0;
    // Of the GEMMs' unit's peak, where most of the FLOPs are.
    return text + format_row("total %.3f ms, %.1f GFLOP/s, %.1f%% of the %speak\n", total_seconds * 1e3, gflops,
                             gemm_peak > 0 ? 100 * gflops / gemm_peak : 0.0, fp32 ? "" : "GEMMs' ");
}

}  // namespace ctformer
