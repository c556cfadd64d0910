# Plans, packers, balancers, planners, buckets and the stream packer.
target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/plan.cc
  # Packing and balancing (issue 3).
  ${CMAKE_CURRENT_LIST_DIR}/bin_packing.cc
  ${CMAKE_CURRENT_LIST_DIR}/packer.cc
  ${CMAKE_CURRENT_LIST_DIR}/lpt.cc
  ${CMAKE_CURRENT_LIST_DIR}/karmarkar_karp.cc
  ${CMAKE_CURRENT_LIST_DIR}/refine.cc
  ${CMAKE_CURRENT_LIST_DIR}/feasible.cc
  ${CMAKE_CURRENT_LIST_DIR}/balance.cc
  # Step planner (issue 4).
  ${CMAKE_CURRENT_LIST_DIR}/planner_documents.cc
  ${CMAKE_CURRENT_LIST_DIR}/planner_baselines.cc
  ${CMAKE_CURRENT_LIST_DIR}/planner_order.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_planner.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_planner_state.cc
  # Buckets and the bucket sampler (issue 5).
  ${CMAKE_CURRENT_LIST_DIR}/buckets.cc
  ${CMAKE_CURRENT_LIST_DIR}/bucket_sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/diversity.cc
  # Streaming packer (issue 10).
  ${CMAKE_CURRENT_LIST_DIR}/stream_packer.cc)
# Append, never set: other concerns' lists must survive.
list(APPEND FLOPSPACK_PACK_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/plan_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/bin_packing_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/packer_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/balance_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/karmarkar_karp_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/refine_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/planner_documents_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_planner_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_planner_state_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/buckets_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/bucket_sampler_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/diversity_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/stream_packer_test.cc)
