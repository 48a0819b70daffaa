# ctformer_add_model(NAME SOURCE file.cpp [PARAMS name=value ...])
# ctformer_add_model(NAME HF_CONFIG config.json [PARAMS name=value ...])
#
# Makes NAME a static library of the model declared in SOURCE with CTFORMER_REGISTER_MODEL(NAME, P),
# or of the model a Hugging Face config.json describes (model_type bert, roberta, xlm-roberta: nn::bert;
# llama, qwen2, mistral: nn::llama; declared by generator/hf_model.cpp, the PARAMS over the file's
# geometry):
#   1. ctformer-gen checks PARAMS (a bad one, or a bad config.json, stops the build with one line)
#      and writes NAME.params.hpp, again whenever config.json changes;
#   2. generator/model_targets.cpp compiles the declaration for Highway's targets (model_targets.hpp)
#      in two halves that build side by side: NAME_narrow (the static target, on x86 SSSE3 too, and
#      the pass trace) and NAME_wide;
#   3. NAME_generator, generator_main.cpp linked with NAME_narrow, writes NAME.hpp, NAME.cpp (the
#      dispatch and the steps the model runs), NAME.plan.txt and NAME.dot (and dot -Tsvg makes
#      NAME.svg when Graphviz is installed), in ${CMAKE_CURRENT_BINARY_DIR}/NAME/;
#   4. the library NAME: NAME.cpp and both halves. Link it and include "NAME.hpp".
# Compile options for the model go on NAME_narrow and NAME_wide (its kernels) as well as NAME.
# Cached, so that a project which adds ctformer with add_subdirectory sees it from its own directories.
set(main "${CMAKE_CURRENT_LIST_DIR}/../generator/generator_main.cpp")  # the source tree
if(NOT EXISTS "${main}")  # installed: lib/cmake/ctformer/ and share/ctformer/generator/
  set(main "${CMAKE_CURRENT_LIST_DIR}/../../../share/ctformer/generator/generator_main.cpp")
endif()
set(CTFORMER_GENERATOR_MAIN "${main}" CACHE INTERNAL "the main of every model's generator")
get_filename_component(main_dir "${main}" DIRECTORY)
set(CTFORMER_HF_MODEL_SOURCE "${main_dir}/hf_model.cpp" CACHE INTERNAL "the declaration of an HF_CONFIG model")
set(CTFORMER_GENERATOR_DIR "${main_dir}" CACHE INTERNAL "model_targets.cpp and .hpp, generator_main.cpp, emit.hpp")
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

  # The model for every Highway target, from its declaration, in two halves that build side by side
  # and beside the generator (generator/model_targets.cpp).
  foreach(half narrow wide)
    add_library(${name}_${half} OBJECT "${CTFORMER_GENERATOR_DIR}/model_targets.cpp" "${params_header}")
    target_compile_definitions(${name}_${half} PRIVATE ${declaration} CTFORMER_MODEL_NAMESPACE=${name})
    target_include_directories(${name}_${half} PRIVATE "${CTFORMER_GENERATOR_DIR}")  # HWY_TARGET_INCLUDE
    target_link_libraries(${name}_${half} PRIVATE ctformer::ctformer)
  endforeach()
  target_compile_definitions(${name}_narrow PRIVATE CTFORMER_NARROW_TARGETS)

  # It only writes text from the narrow half's static-target model: -O1 compiles it in seconds.
  add_executable(${name}_generator "${CTFORMER_GENERATOR_MAIN}" "${params_header}")
  target_compile_definitions(${name}_generator PRIVATE CTFORMER_PARAMS_HEADER="${params_header}"
                                                        CTFORMER_MODEL_NAMESPACE=${name})
  target_link_libraries(${name}_generator PRIVATE ${name}_narrow ctformer::ctformer)
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
  target_include_directories(${name} PUBLIC "${dir}" PRIVATE "${CTFORMER_GENERATOR_DIR}")  # model_targets.hpp
  target_link_libraries(${name} PUBLIC ctformer::ctformer PRIVATE ${name}_narrow ${name}_wide)
endfunction()
