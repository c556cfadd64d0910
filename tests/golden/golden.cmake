# The golden-vector generator (not a test): writes tests/golden/*.json from
# the C++ core. Run build/tests/golden/golden_generate tests/golden after an
# intended change, review the diff, commit. See tests/golden/README.md.
add_executable(golden_generate ${CMAKE_CURRENT_LIST_DIR}/generate.cc)
set_target_properties(golden_generate PROPERTIES CXX_STANDARD 17
  RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests/golden)
target_compile_options(golden_generate PRIVATE ${FLOPSPACK_WARNINGS})
find_package(nlohmann_json 3.10 REQUIRED)
target_link_libraries(golden_generate PRIVATE flopspack nlohmann_json::nlohmann_json)
# Not built by default in an AddressSanitizer tree (CI's ASan stage): no test
# runs it, the GCC tree compiles it with -Werror, and it was 17.5 of that
# tree's 406 compile CPU seconds.
if(FLOPSPACK_SANITIZER_RUNTIMES)
  set_target_properties(golden_generate PROPERTIES EXCLUDE_FROM_ALL ON)
endif()
