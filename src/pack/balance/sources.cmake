# Balancing: items into k groups (LPT, Karmarkar-Karp, cap-feasible search,
# refinement).
target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/karmarkar_karp.cc
  ${CMAKE_CURRENT_LIST_DIR}/feasible.cc
  ${CMAKE_CURRENT_LIST_DIR}/balance.cc)
list(APPEND FLOPSPACK_PACK_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/balance_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/karmarkar_karp_test.cc)
