target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/bin_packing.cc
  ${CMAKE_CURRENT_LIST_DIR}/packer.cc
  ${CMAKE_CURRENT_LIST_DIR}/lpt.cc
  ${CMAKE_CURRENT_LIST_DIR}/karmarkar_karp.cc
  ${CMAKE_CURRENT_LIST_DIR}/refine.cc
  ${CMAKE_CURRENT_LIST_DIR}/feasible.cc
  ${CMAKE_CURRENT_LIST_DIR}/balance.cc)
set(FLOPSPACK_PACK_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/plan_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/bin_packing_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/packer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/balance_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/karmarkar_karp_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/refine_test.cc)
