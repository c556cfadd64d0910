target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/capi_util.cc
  ${CMAKE_CURRENT_LIST_DIR}/cost_model_capi.cc
  ${CMAKE_CURRENT_LIST_DIR}/cp_capi.cc
  ${CMAKE_CURRENT_LIST_DIR}/pack_capi.cc
  ${CMAKE_CURRENT_LIST_DIR}/plan_capi.cc
  ${CMAKE_CURRENT_LIST_DIR}/simulate_capi.cc
  ${CMAKE_CURRENT_LIST_DIR}/stats_capi.cc
  ${CMAKE_CURRENT_LIST_DIR}/stream_capi.cc
  ${CMAKE_CURRENT_LIST_DIR}/version_capi.cc)
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/step_planner_capi.cc)
set(FLOPSPACK_CAPI_TESTS)
target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/buckets_capi.cc)
