# The step planner: documents into ranks x microbatches, its baselines, slot
# order and the streaming step planner.
target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/balanced_split.cc
  ${CMAKE_CURRENT_LIST_DIR}/cut_to_share.cc
  ${CMAKE_CURRENT_LIST_DIR}/planner_documents.cc
  ${CMAKE_CURRENT_LIST_DIR}/planner_baselines.cc
  ${CMAKE_CURRENT_LIST_DIR}/planner_order.cc
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_order.cc
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_schedule.cc
  ${CMAKE_CURRENT_LIST_DIR}/slot_balance.cc
  ${CMAKE_CURRENT_LIST_DIR}/sync_metrics.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_planner.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_planner_state.cc)
list(APPEND FLOPSPACK_PACK_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/balanced_split_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/planner_documents_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_order_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_schedule_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/slot_balance_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/sync_metrics_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_planner_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_planner_cp_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/step_planner_state_test.cc)
