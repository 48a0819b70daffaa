# ctformer_add_model(NAME SOURCE file.cpp [PARAMS name=value ...])
# ctformer_add_model(NAME HF_CONFIG config.json [PARAMS name=value ...])
#
# Makes NAME a static library of the model declared in SOURCE with CTFORMER_REGISTER_MODEL(NAME, P),
# or of the BERT-family model a Hugging Face config.json describes (model_type bert, roberta,
# xlm-roberta; declared by generator/hf_model.cpp, the PARAMS over the file's geometry):
#   1. ctformer-gen checks PARAMS (a bad one, or a bad config.json, stops the build with one line)
#      and writes NAME.params.hpp, again whenever config.json changes;
#   2. NAME_generator, built from SOURCE and that header, writes NAME.hpp, NAME.cpp, NAME.plan.txt and
#      NAME.dot (and dot -Tsvg makes NAME.svg when Graphviz is installed), in
#      ${CMAKE_CURRENT_BINARY_DIR}/NAME/;
#   3. NAME.cpp is compiled for every Highway target into the library; link it and include "NAME.hpp".
# Cached, so that a project which adds ctformer with add_subdirectory sees it from its own directories.
set(main "${CMAKE_CURRENT_LIST_DIR}/../generator/generator_main.cpp")  # the source tree
if(NOT EXISTS "${main}")  # installed: lib/cmake/ctformer/ and share/ctformer/generator/
  set(main "${CMAKE_CURRENT_LIST_DIR}/../../../share/ctformer/generator/generator_main.cpp")
endif()
set(CTFORMER_GENERATOR_MAIN "${main}" CACHE INTERNAL "the main of every model's generator")
get_filename_component(main_dir "${main}" DIRECTORY)
set(CTFORMER_HF_MODEL_SOURCE "${main_dir}/hf_model.cpp" CACHE INTERNAL "the declaration of an HF_CONFIG model")
find_program(CTFORMER_DOT_PROGRAM dot)

function(ctformer_add_model name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "SOURCE;HF_CONFIG" "PARAMS")
  if(ARG_UNPARSED_ARGUMENTS OR (ARG_SOURCE AND ARG_HF_CONFIG) OR (NOT ARG_SOURCE AND NOT ARG_HF_CONFIG))
    message(FATAL_ERROR "usage: ctformer_add_model(NAME SOURCE file.cpp [PARAMS name=value ...])\n"
                        "   or: ctformer_add_model(NAME HF_CONFIG config.json [PARAMS name=value ...])")
  endif()
  if(ARG_HF_CONFIG)
    get_filename_component(config "${ARG_HF_CONFIG}" ABSOLUTE)
    set(source "${CTFORMER_HF_MODEL_SOURCE}")
    set(read --hf-config "${config}")
  else()
    get_filename_component(source "${ARG_SOURCE}" ABSOLUTE)
    set(config)
    set(read --source "${source}")
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  set(params_header "${dir}/${name}.params.hpp")
  set(declaration CTFORMER_PARAMS_HEADER="${params_header}" CTFORMER_MODEL_SOURCE="${source}")

  add_custom_command(OUTPUT "${params_header}"
    COMMAND ctformer::gen --name ${name} ${read} --output-dir "${dir}" ${ARG_PARAMS}
    DEPENDS ctformer::gen ${config}
    COMMENT "ctformer-gen: the parameters of ${name}" VERBATIM)

  add_executable(${name}_generator "${CTFORMER_GENERATOR_MAIN}" "${params_header}")
  target_compile_definitions(${name}_generator PRIVATE ${declaration})
  target_link_libraries(${name}_generator PRIVATE ctformer::ctformer)
  # It only lowers the model and writes text, in a second: -O1 compiles it in 60% of -O3's time
  # (MiniLM's: 23 s against 37 s), and what it writes does not depend on it.
  target_compile_options(${name}_generator PRIVATE -O1)

  set(outputs "${dir}/${name}.hpp" "${dir}/${name}.cpp" "${dir}/${name}.plan.txt" "${dir}/${name}.dot")
  set(picture)
  if(CTFORMER_DOT_PROGRAM)
    list(APPEND outputs "${dir}/${name}.svg")
    set(picture COMMAND "${CTFORMER_DOT_PROGRAM}" -Tsvg "${dir}/${name}.dot" -o "${dir}/${name}.svg")
  endif()
  add_custom_command(OUTPUT ${outputs}
    COMMAND ${name}_generator --output-dir "${dir}"
    ${picture}
    DEPENDS ${name}_generator
    COMMENT "ctformer: generating ${name}" VERBATIM)

  add_library(${name} STATIC "${dir}/${name}.cpp" "${dir}/${name}.hpp")
  target_include_directories(${name} PUBLIC "${dir}")
  target_compile_definitions(${name} PRIVATE ${declaration})
  target_link_libraries(${name} PUBLIC ctformer::ctformer)
endfunction()
