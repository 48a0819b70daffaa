// Binding a model's weights (ctformer/runtime/weights.hpp), compiled once for every model.
#include <ctformer/runtime/weights.hpp>

#include <set>

#include <ctformer/runtime/pytorch_names.hpp>

namespace ctformer::runtime {
namespace {

int iterations(const plan::program& p, int repeat) { return repeat < 0 ? 1 : p.repeats[repeat].count; }
std::string prefix(const plan::program& p, int repeat, int iteration) {
    return repeat < 0 ? "" : p.repeats[repeat].prefix_of(iteration);
}

// PyTorch's load_state_dict error: every missing name with its shape, and, strictly, every given
// name the model does not read; q/k/v projections as the in_proj_* the file holds.
void check_names(const plan::program& p, const std::map<std::string, dims_t>& given, bool strict) {
    const std::vector<std::pair<std::string, std::vector<int>>> read = bound_weights::weights_read(p);
    std::set<std::string> known;
    std::vector<std::pair<std::string, std::vector<int>>> missing, unexpected;
    for (const auto& [name, extents] : read) {
        known.insert(name);
        if (!given.contains(name)) missing.emplace_back(name, extents);
    }
    for (const plan::slot& s : p.slots)
        if (s.kind == plan::slot_kind::input) known.insert(s.name);
    for (const auto& [name, dims] : given)
        if (!known.contains(name)) unexpected.emplace_back(name, std::vector<int>(dims.begin(), dims.end()));
    std::vector<std::string> extra;
    for (const auto& [name, extents] : as_pytorch_names(unexpected)) extra.push_back(name);
    if (!missing.empty()) {
        const auto shown = as_pytorch_names(missing);
        std::string more;
        for (std::size_t i = 1; i < shown.size(); ++i)
            more += (i == 1 ? "; also missing: " : ", ") + shown[i].first + " " + extents_text(shown[i].second);
        if (strict && !extra.empty()) more += "; not read by the model: " + unexpected_tensor::joined(extra);
        throw missing_tensor(shown[0].first, extents_text(shown[0].second), more);
    }
    if (strict && !extra.empty()) throw unexpected_tensor(extra);
}

// The tensor `name` (check_names found it), its shape checked against the declared extents before
// its values are read.
host_tensor<float> checked(const weight_source& given, const std::map<std::string, dims_t>& shapes, const std::string& name,
                           const std::vector<int>& extents) {
    if (const dims_t& dims = shapes.at(name); dims != dims_of(extents, {}))  // weights have static extents
        throw shape_mismatch(name, extents_text(extents), to_string(dims));
    return given.tensor(name);
}

// A matrix [rows, cols] appended as [cols, rows].
void append_transposed(const host_tensor<float>& t, std::vector<float>& values) {
    const std::size_t rows = t.dims[0], cols = t.dims[1];
    for (std::size_t c = 0; c < cols; ++c)
        for (std::size_t r = 0; r < rows; ++r) values.push_back(t.data[r * cols + c]);
}

// Step k's W (its parts stacked along the first axis) and bias, for iteration i, packed.
kernels::packed_weight pack(const plan::program& p, std::size_t k, int i, const weight_source& given,
                            const std::map<std::string, dims_t>& shapes, kernels::precision format) {
    const plan::step& s = p.steps[k];
    std::vector<std::vector<float>> joined;
    for (const plan::packed_use& use : s.packed) {
        std::vector<float>& values = joined.emplace_back();
        for (std::size_t part = 0; part < use.parts.size(); ++part) {
            const host_tensor<float> t = checked(given, shapes, prefix(p, s.repeat, i) + use.parts[part], use.part_extents[part]);
            if (use.part_transposed[part]) append_transposed(t, values);
            else values.insert(values.end(), t.data.begin(), t.data.end());
        }
    }
    return s.pack(joined[0].data(), joined.size() > 1 ? joined[1].data() : nullptr, format);
}

}  // namespace

void bound_weights::bind(const plan::program& p, const weight_source& given, const bind_options& options) {
    const std::map<std::string, dims_t> shapes = given.shapes();
    check_names(p, shapes, options.strict);
    std::vector<std::vector<std::vector<float>>> plain(p.slots.size());
    for (plan::slot_id s = 0; s < p.slots.size(); ++s)
        if (p.slots[s].kind == plan::slot_kind::weight)
            for (int i = 0; i < iterations(p, p.slots[s].repeat); ++i)
                plain[s].push_back(checked(given, shapes, prefix(p, p.slots[s].repeat, i) + p.slots[s].name, p.slots[s].extents).data);
    std::vector<std::vector<kernels::packed_weight>> packed(p.steps.size());
    for (std::size_t k = 0; k < p.steps.size(); ++k)
        if (!p.steps[k].packed.empty())
            for (int i = 0; i < iterations(p, p.steps[k].repeat); ++i) packed[k].push_back(pack(p, k, i, given, shapes, options.precision));
    plain_ = std::move(plain);
    packed_ = std::move(packed);
    format_ = options.precision;
    unit_ = kernels::gemm_unit::fp32;
    for (const auto& step : packed_)
        if (!step.empty()) unit_ = step.front().unit;  // one unit for every GEMM: chosen by the target
    bound_ = true;
}

std::vector<std::pair<std::string, std::vector<int>>> bound_weights::weights_read(const plan::program& p) {
    std::vector<std::pair<std::string, std::vector<int>>> names;
    for (const plan::slot& s : p.slots)
        if (s.kind == plan::slot_kind::weight)
            for (int i = 0; i < iterations(p, s.repeat); ++i) names.emplace_back(prefix(p, s.repeat, i) + s.name, s.extents);
    for (const plan::step& s : p.steps)
        for (const plan::packed_use& use : s.packed)
            for (int i = 0; i < iterations(p, s.repeat); ++i)
                for (std::size_t part = 0; part < use.parts.size(); ++part)
                    names.emplace_back(prefix(p, s.repeat, i) + use.parts[part], use.part_extents[part]);
    return names;
}

}  // namespace ctformer::runtime
