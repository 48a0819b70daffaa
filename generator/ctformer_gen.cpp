// ctformer-gen: checks a model's parameters and writes them as a C++ header, the first step of
// ctformer_add_model (the model's own generator, built from that header and the declaration, writes
// the sources). A bad parameter is one line naming it, and exit status 2.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <ctformer/generator_params.hpp>

namespace {

void print_help(std::ostream& out) {
    out << "usage: ctformer-gen --name NAME --source FILE --output-dir DIR [PARAM=VALUE ...]\n"
           "       ctformer-gen --help-table   (the parameters as a Markdown table)\n\n"
           "Checks the parameters of model NAME, declared in FILE with CTFORMER_REGISTER_MODEL, and\n"
           "writes DIR/NAME.params.hpp. ctformer_add_model(NAME SOURCE FILE PARAMS ...) runs it, then\n"
           "builds NAME's generator, which writes NAME.hpp, NAME.cpp, NAME.plan.txt and NAME.dot\n"
           "(CTFORMER_GEN_DEBUG=1|2|3: fused groups | trees after each pass | generated source).\n\n"
           "parameters:\n"
        << ctformer::gen::params_help();
}

bool is_identifier(const std::string& name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return true;
}

int fail(const std::string& message) {
    std::cerr << "ctformer-gen: " << message << "\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::string name, source, dir;
    std::vector<std::string> words;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            print_help(std::cout);
            return 0;
        }
        if (arg == "--help-table") {
            std::cout << ctformer::gen::params_table();
            return 0;
        }
        std::string* value = arg == "--name" ? &name : arg == "--source" ? &source : arg == "--output-dir" ? &dir : nullptr;
        if (value && i + 1 < argc) *value = argv[++i];
        else if (value) return fail(arg + " needs a value");
        else if (arg.starts_with("--")) return fail("unknown option " + arg + " (see --help)");
        else words.push_back(arg);
    }
    if (name.empty() || source.empty() || dir.empty()) return fail("--name, --source and --output-dir are needed (see --help)");
    if (!is_identifier(name)) return fail("model name '" + name + "' is not a C++ identifier");
    try {
        const ctformer::gen::params p = ctformer::gen::parse(words);
        std::string given;
        for (const std::string& w : words) given += (given.empty() ? "" : " ") + w;
        std::filesystem::create_directories(dir);
        std::ofstream out(std::filesystem::path(dir) / (name + ".params.hpp"));
        out << "// " << name << "'s parameters, checked and written by ctformer-gen.\n#pragma once\n\n"
            << "#include <string_view>\n\n#include <ctformer/generator_params.hpp>\n\n"
            << "inline constexpr ctformer::gen::params ctformer_model_params = " << ctformer::gen::to_cpp(p) << ";\n"
            << "inline constexpr std::string_view ctformer_model_name = \"" << name << "\";\n"
            << "inline constexpr std::string_view ctformer_model_source = \""
            << std::filesystem::path(source).filename().string() << "\";\n"
            << "inline constexpr std::string_view ctformer_model_params_text = \""
            << (given.empty() ? "default parameters" : given) << "\";\n";
        if (!out) return fail("cannot write " + dir + "/" + name + ".params.hpp");
        return 0;
    } catch (const ctformer::gen::param_error& e) {
        return fail(e.what());
    }
}
