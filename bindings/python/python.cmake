# The Python package `flopspack`: bindings/python/flopspack/*.py copied next to
# the SWIG extension flopspack._capi.so in <build>/bindings/python, so that
# PYTHONPATH=<build>/bindings/python imports it. Tests: pytest (python_test).
# Without -DPython3_EXECUTABLE, take the first python3 that can import numpy
# (a pyenv shim first on PATH often cannot see the system's numpy).
if(NOT Python3_EXECUTABLE)
  find_program(_py_on_path NAMES python3 NO_CACHE)
  foreach(_candidate IN ITEMS ${_py_on_path} /usr/bin/python3)
    execute_process(COMMAND ${_candidate} -c "import numpy"
      RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      set(Python3_EXECUTABLE ${_candidate} CACHE FILEPATH "Python 3 interpreter")
      break()
    endif()
  endforeach()
endif()
find_package(Python3 COMPONENTS Interpreter Development.Module NumPy)
find_package(SWIG 4.0 COMPONENTS python)
if(NOT Python3_FOUND OR NOT Python3_NumPy_FOUND OR NOT SWIG_FOUND)
  message(FATAL_ERROR "FLOPSPACK_BUILD_PYTHON needs SWIG, Python 3 headers and NumPy "
    "(scripts/install-deps.sh; pass -DPython3_EXECUTABLE=/usr/bin/python3 on Debian), "
    "or set -DFLOPSPACK_BUILD_PYTHON=OFF")
endif()
include(UseSWIG)

set(_py_src ${CMAKE_CURRENT_SOURCE_DIR}/python)
set(_py_root ${CMAKE_CURRENT_BINARY_DIR}/python)
set(_py_pkg ${_py_root}/flopspack)
set(_py_i ${_py_src}/flopspack_python.i)

set_property(SOURCE ${_py_i} PROPERTY CPLUSPLUS ON)
set_property(SOURCE ${_py_i} PROPERTY SWIG_MODULE_NAME capi)
set_property(SOURCE ${_py_i} PROPERTY SWIG_FLAGS -threads -DSWIGWORDSIZE64)
set_property(SOURCE ${_py_i} PROPERTY INCLUDE_DIRECTORIES
  ${PROJECT_SOURCE_DIR}/include ${Python3_NumPy_INCLUDE_DIRS}/numpy)
set_property(SOURCE ${_py_i} PROPERTY DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/swig/flopspack.i
  ${PROJECT_SOURCE_DIR}/include/flopspack/flopspack.h)
swig_add_library(flopspack_python TYPE MODULE LANGUAGE python
  OUTPUT_DIR ${_py_pkg} OUTFILE_DIR ${_py_root}/swig SOURCES ${_py_i})
# SWIG's proxy _capi.py imports the extension as flopspack._capi.
set_target_properties(flopspack_python PROPERTIES
  OUTPUT_NAME capi PREFIX _ LIBRARY_OUTPUT_DIRECTORY ${_py_pkg}
  CXX_STANDARD 17 CXX_VISIBILITY_PRESET hidden)
target_link_libraries(flopspack_python PRIVATE flopspack Python3::Module Python3::NumPy)
# Generated code: its own warnings are not ours to fix.
target_compile_options(flopspack_python PRIVATE -w)

file(GLOB _py_files CONFIGURE_DEPENDS ${_py_src}/flopspack/*.py ${_py_src}/flopspack/*.pyi
  ${_py_src}/flopspack/py.typed)
file(GLOB _py_compat_files CONFIGURE_DEPENDS ${_py_src}/flopspack/compat/*.py)
# The preset table shared with the CLI (flopspack.CostModel.preset).
set(_py_presets ${PROJECT_SOURCE_DIR}/src/cli/model_presets.def)
add_custom_command(OUTPUT ${_py_pkg}/model_presets.def
  COMMAND ${CMAKE_COMMAND} -E copy_if_different ${_py_presets} ${_py_pkg}/model_presets.def
  DEPENDS ${_py_presets} VERBATIM)
set(_py_copies ${_py_pkg}/model_presets.def)
foreach(_f IN LISTS _py_files _py_compat_files)
  file(RELATIVE_PATH _name ${_py_src}/flopspack ${_f})
  add_custom_command(OUTPUT ${_py_pkg}/${_name}
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${_f} ${_py_pkg}/${_name}
    DEPENDS ${_f} VERBATIM)
  list(APPEND _py_copies ${_py_pkg}/${_name})
endforeach()
add_custom_target(flopspack_python_files ALL DEPENDS ${_py_copies})
add_dependencies(flopspack_python flopspack_python_files)

if(FLOPSPACK_BUILD_TESTS)
  set(_py_env "PYTHONPATH=${_py_root}" "FLOPSPACK_GOLDEN_DIR=${FLOPSPACK_GOLDEN_DIR}"
    "FLOPSPACK_REQUIRE_TORCH=1"
    "PYTHONDONTWRITEBYTECODE=1")
  if(FLOPSPACK_BINDINGS_PRELOAD)
    # FLOPSPACK_SANITIZED: tests that compare wall or CPU timings skip the
    # comparison (the sanitizer's allocator, not the product, sets them).
    list(APPEND _py_env "LD_PRELOAD=${FLOPSPACK_BINDINGS_PRELOAD}" "ASAN_OPTIONS=detect_leaks=0"
      "FLOPSPACK_SANITIZED=1")
  endif()
  add_test(NAME python_test
    COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${_py_src}/tests)
  # COST: started first by ctest -j in a fresh tree, as the CLI's long suites
  # (tests/cli/CMakeLists.txt).
  set_tests_properties(python_test PROPERTIES ENVIRONMENT "${_py_env}" COST 50)
endif()

if(FLOPSPACK_INSTALL)
  # <prefix>/lib/pythonX.Y/site-packages/flopspack, finding libflopspack in
  # <prefix>/lib through a relative rpath.
  set(FLOPSPACK_PYTHON_INSTALL_DIR
    "${CMAKE_INSTALL_LIBDIR}/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/site-packages"
    CACHE STRING "Where the Python package flopspack is installed (relative to the prefix)")
  set_target_properties(flopspack_python PROPERTIES INSTALL_RPATH "$ORIGIN/../../..")
  install(TARGETS flopspack_python LIBRARY DESTINATION ${FLOPSPACK_PYTHON_INSTALL_DIR}/flopspack)
  install(FILES ${_py_pkg}/capi.py ${_py_files}
    DESTINATION ${FLOPSPACK_PYTHON_INSTALL_DIR}/flopspack)
  install(FILES ${_py_compat_files} DESTINATION ${FLOPSPACK_PYTHON_INSTALL_DIR}/flopspack/compat)
  install(FILES ${_py_presets} DESTINATION ${FLOPSPACK_PYTHON_INSTALL_DIR}/flopspack)
endif()
