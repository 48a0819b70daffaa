# Installs the built ctformer into a prefix, then configures, builds and runs examples/consumer/
# against that prefix alone; and that the installed ctformer-gen reads a config.json, with the
# declaration of HF_CONFIG models beside generator_main.cpp (a BERT model's build is left to the
# tests' bert_tiny: minutes). Arguments: -DBUILD_DIR -DSOURCE_DIR -DWORK_DIR.
file(REMOVE_RECURSE "${WORK_DIR}")
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "failed (${failed}): ${ARGN}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/install")
foreach(file generator_main.cpp model_targets.cpp emit.hpp hf_model.cpp)
  if(NOT EXISTS "${WORK_DIR}/install/share/ctformer/generator/${file}")
    message(FATAL_ERROR "not installed: share/ctformer/generator/${file}")
  endif()
endforeach()
step("${WORK_DIR}/install/bin/ctformer-gen" --name tiny --hf-config "${SOURCE_DIR}/tests/data/hf/bert_tiny/config.json"
     --output-dir "${WORK_DIR}/hf" seq=16)
step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer" -B "${WORK_DIR}/build" -DCMAKE_BUILD_TYPE=Release
     "-DCMAKE_PREFIX_PATH=${WORK_DIR}/install" -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
step(${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j 2)
step("${WORK_DIR}/build/app")
