# Installs the built ctformer into a prefix, then configures, builds and runs examples/consumer/
# against that prefix alone. Arguments: -DBUILD_DIR -DSOURCE_DIR -DWORK_DIR.
file(REMOVE_RECURSE "${WORK_DIR}")
function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "failed (${failed}): ${ARGN}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${WORK_DIR}/install")
step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/consumer" -B "${WORK_DIR}/build" -DCMAKE_BUILD_TYPE=Release
     "-DCMAKE_PREFIX_PATH=${WORK_DIR}/install" -DCMAKE_CXX_COMPILER_LAUNCHER=${LAUNCHER})
step(${CMAKE_COMMAND} --build "${WORK_DIR}/build" -j 2)
step("${WORK_DIR}/build/app")
