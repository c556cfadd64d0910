# Shared primitives: the Plan result, the cost order, LPT with slot quotas,
# bin packing (first/best fit decreasing), the move/swap refiner, the bit
# tree and the saved-state codec.
target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/cost_order.cc
  ${CMAKE_CURRENT_LIST_DIR}/saved_state.cc
  ${CMAKE_CURRENT_LIST_DIR}/extra_costs.cc
  ${CMAKE_CURRENT_LIST_DIR}/lpt.cc
  ${CMAKE_CURRENT_LIST_DIR}/bin_packing.cc
  ${CMAKE_CURRENT_LIST_DIR}/refine.cc
  ${CMAKE_CURRENT_LIST_DIR}/refine_slots.cc)
list(APPEND FLOPSPACK_PACK_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/plan_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/cost_order_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/lpt_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/saved_state_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/bin_packing_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/refine_test.cc)
