target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/plan.cc)
set(FLOPSPACK_PACK_TESTS ${CMAKE_CURRENT_LIST_DIR}/plan_test.cc)
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/stream_packer.cc)
list(APPEND FLOPSPACK_PACK_TESTS ${CMAKE_CURRENT_LIST_DIR}/stream_packer_test.cc)
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/buckets.cc)
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bucket_sampler.cc)
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/diversity.cc)
list(APPEND FLOPSPACK_PACK_TESTS ${CMAKE_CURRENT_LIST_DIR}/buckets_test.cc)
list(APPEND FLOPSPACK_PACK_TESTS ${CMAKE_CURRENT_LIST_DIR}/bucket_sampler_test.cc)
list(APPEND FLOPSPACK_PACK_TESTS ${CMAKE_CURRENT_LIST_DIR}/diversity_test.cc)
# Step planner (issue 4).
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/planner_documents.cc)
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/planner_baselines.cc)
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/planner_order.cc)
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/step_planner.cc)
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/step_planner_state.cc)
list(APPEND FLOPSPACK_PACK_TESTS ${CMAKE_CURRENT_LIST_DIR}/planner_documents_test.cc)
list(APPEND FLOPSPACK_PACK_TESTS ${CMAKE_CURRENT_LIST_DIR}/step_planner_test.cc)
list(APPEND FLOPSPACK_PACK_TESTS ${CMAKE_CURRENT_LIST_DIR}/step_planner_state_test.cc)
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
