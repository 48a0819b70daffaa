# cmake -DCXX=... -DFLAGS=... -DCASE=file.cpp -P expect_failure.cmake
# Passes when compiling CASE with -DCTF_FAIL fails, the diagnostic contains the message named in the
# case's "// expect: NAME" line, and the first error is reported in CASE itself (except for a case
# marked "// first error: in the library", a message no user's line can carry).
file(STRINGS "${CASE}" expect_line REGEX "^// expect: " LIMIT_COUNT 1)
string(REGEX REPLACE "^// expect: *([A-Z0-9_]+).*" "\\1" expected "${expect_line}")
if(NOT expected)
  message(FATAL_ERROR "${CASE} has no '// expect: MESSAGE' line")
endif()

execute_process(COMMAND ${CXX} ${FLAGS} -DCTF_FAIL "${CASE}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(result EQUAL 0)
  message(FATAL_ERROR "${CASE} compiled with -DCTF_FAIL; expected ${expected}")
endif()

string(FIND "${output}" "${expected}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the diagnostic does not name ${expected}:\n${output}")
endif()

string(REGEX MATCH "[^\n]*: error: [^\n]*" first_error "${output}")
file(STRINGS "${CASE}" in_library REGEX "^// first error: in the library" LIMIT_COUNT 1)
if(in_library)
  message(STATUS "${expected} at ${first_error}")
  return()
endif()
string(FIND "${first_error}" "${CASE}:" where)
if(NOT where EQUAL 0)
  message(FATAL_ERROR "the first error is not at the user's line in ${CASE}:\n${first_error}")
endif()
message(STATUS "${expected} at ${first_error}")
