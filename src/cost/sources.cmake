target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cost_model.cc
  ${CMAKE_CURRENT_LIST_DIR}/custom.cc
  ${CMAKE_CURRENT_LIST_DIR}/evaluate.cc
  ${CMAKE_CURRENT_LIST_DIR}/fit.cc
  ${CMAKE_CURRENT_LIST_DIR}/multimodal.cc
  ${CMAKE_CURRENT_LIST_DIR}/nnls.cc
  ${CMAKE_CURRENT_LIST_DIR}/polynomial.cc
  ${CMAKE_CURRENT_LIST_DIR}/samples.cc
  ${CMAKE_CURRENT_LIST_DIR}/transformer.cc)
set(FLOPSPACK_COST_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/evaluate_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/fit_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/multimodal_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/polynomial_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/transformer_test.cc)
