// The generator of one model, built by ctformer_add_model: this file linked with the narrow half of
// the model compiled from its declaration (model_targets.cpp, CTFORMER_NARROW_TARGETS), and the
// parameters ctformer-gen checked (CTFORMER_PARAMS_HEADER). Writes NAME.hpp, NAME.cpp, NAME.plan.txt
// and NAME.dot into --output-dir, all from the model's program as the static target lowers it; every
// target's program has the same steps. CTFORMER_GEN_DEBUG prints more on stderr: 1 the plan's table,
// 2 and the tree after each fusion pass, 3 and the generated source.
#include CTFORMER_PARAMS_HEADER

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include <ctformer/inspect/dot.hpp>
#include <ctformer/runtime/any_model.hpp>

#include "emit.hpp"

namespace ctformer_generated::CTFORMER_MODEL_NAMESPACE {
std::unique_ptr<ctformer::any_model> make_static_model();  // model_targets.cpp
}

namespace ctformer::gen {

inline int debug_level() {
    const char* level = std::getenv("CTFORMER_GEN_DEBUG");
    return level ? std::atoi(level) : 0;
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

int generator_main(const any_model& model, const model_info& info, int argc, char** argv) {
    const std::string_view usage = " --output-dir DIR\n  writes NAME.hpp, NAME.cpp, NAME.plan.txt and NAME.dot into DIR\n"
                                   "  CTFORMER_GEN_DEBUG=1|2|3 prints the plan | and the tree after each pass"
                                   " | and the generated source\n";
    if (argc != 3 || std::string_view(argv[1]) != "--output-dir") {
        std::cerr << "usage: " << argv[0] << usage;
        return argc == 2 && std::string_view(argv[1]) == "--help" ? 0 : 2;
    }
    try {
        const std::filesystem::path dir = argv[2];
        const plan::program& program = model.program();
        const std::string header = emit_header(program, info), source = emit_source(program, info);
        const std::string plan = "# " + info.name + ": " + info.source + " (" + info.params_text + ")\n" + model.explain({1});
        write_file(dir / (info.name + ".hpp"), header);
        write_file(dir / (info.name + ".cpp"), source);
        write_file(dir / (info.name + ".plan.txt"), plan);
        write_file(dir / (info.name + ".dot"), to_dot(program, {1}));
        const int level = debug_level();
        if (level >= 1) std::cerr << "== " << info.name << ": plan ==\n" << plan_table(program, {1});
        if (level >= 2) std::cerr << plan;
        if (level >= 3) std::cerr << "== " << info.name << ".hpp ==\n" << header << "== " << info.name << ".cpp ==\n" << source;
        return 0;
    } catch (const std::exception& e) {
        std::cerr << argv[0] << ": " << e.what() << "\n";
        return 1;
    }
}

}  // namespace ctformer::gen

int main(int argc, char** argv) {
    const ctformer::gen::model_info info{std::string(ctformer_model_name), std::string(ctformer_model_source),
                                         std::string(ctformer_model_params_text),
                                         ctformer::kernels::precision_name(ctformer_model_params.precision)};
    return ctformer::gen::generator_main(*ctformer_generated::CTFORMER_MODEL_NAMESPACE::make_static_model(), info, argc, argv);
}
