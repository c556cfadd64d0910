# The Rust workspace bindings/rust (flopspack-sys + flopspack): `cargo test
# --offline` against the built library (FLOPSPACK_LIB_DIR), with its target
# directory in the build tree. rust_sys_generated_current checks that the
# committed bindgen output matches the header (re-run regenerate.sh if not).
find_program(CARGO_EXECUTABLE cargo HINTS $ENV{CARGO_HOME}/bin $ENV{HOME}/.cargo/bin)
if(NOT CARGO_EXECUTABLE)
  message(FATAL_ERROR "FLOPSPACK_BUILD_RUST needs cargo (rustup, ~/.cargo/bin), "
    "or set -DFLOPSPACK_BUILD_RUST=OFF")
endif()
if(FLOPSPACK_BUILD_TESTS)
  set(_rust_env "FLOPSPACK_LIB_DIR=${_lib_dir}" "FLOPSPACK_GOLDEN_DIR=${FLOPSPACK_GOLDEN_DIR}"
    "CARGO_TARGET_DIR=${CMAKE_CURRENT_BINARY_DIR}/rust-target" "CARGO_TERM_COLOR=never")
  if(FLOPSPACK_BINDINGS_PRELOAD)
    # Sanitizer build: the test binaries (not cargo/rustc) get the runtimes.
    list(APPEND _rust_env
      "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=env LD_PRELOAD=${FLOPSPACK_BINDINGS_PRELOAD} ASAN_OPTIONS=detect_leaks=0")
    set(_rust_args --lib --tests) # rustdoc runs doc tests itself, without the runner
  else()
    set(_rust_args)
  endif()
  add_test(NAME rust_test
    COMMAND ${CARGO_EXECUTABLE} test --offline --quiet --workspace ${_rust_args}
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/rust)
  # COST: mostly cargo's compile; ctest -j starts it early, as python_test.
  set_tests_properties(rust_test PROPERTIES ENVIRONMENT "${_rust_env}" TIMEOUT 900 COST 50)
  find_program(BINDGEN_EXECUTABLE bindgen)
  if(BINDGEN_EXECUTABLE)
    add_test(NAME rust_sys_generated_current
      COMMAND sh -c "'${CMAKE_CURRENT_SOURCE_DIR}/rust/flopspack-sys/regenerate.sh' \"$1\" && diff -u '${CMAKE_CURRENT_SOURCE_DIR}/rust/flopspack-sys/src/generated.rs' \"$1\"" sh ${CMAKE_CURRENT_BINARY_DIR}/generated.rs)
  endif()
endif()
