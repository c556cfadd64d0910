# The Go module bindings/go: `go test` builds it from source (the go tool runs
# SWIG on internal/capi/capi.swigcxx itself) against the built library.
find_program(GO_EXECUTABLE go)
find_program(SWIG_EXECUTABLE_FOR_GO swig)
if(NOT GO_EXECUTABLE OR NOT SWIG_EXECUTABLE_FOR_GO)
  message(FATAL_ERROR "FLOPSPACK_BUILD_GO needs go and swig on PATH (scripts/install-deps.sh), "
    "or set -DFLOPSPACK_BUILD_GO=OFF")
endif()
if(FLOPSPACK_BUILD_TESTS)
  add_test(NAME go_test
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/go/run_tests.sh ${PROJECT_SOURCE_DIR}/include
            ${_lib_dir} "${FLOPSPACK_BINDINGS_PRELOAD}")
  set_tests_properties(go_test PROPERTIES
    ENVIRONMENT "FLOPSPACK_GOLDEN_DIR=${FLOPSPACK_GOLDEN_DIR}" TIMEOUT 600
    COST 50)  # mostly the cgo/SWIG compile: ctest -j starts it early, as python_test
endif()
