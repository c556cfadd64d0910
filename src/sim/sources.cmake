target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/bucket_policy.cc
  ${CMAKE_CURRENT_LIST_DIR}/planner_policy.cc
  ${CMAKE_CURRENT_LIST_DIR}/policy.cc
  ${CMAKE_CURRENT_LIST_DIR}/random_dealing.cc
  ${CMAKE_CURRENT_LIST_DIR}/simulator.cc
  ${CMAKE_CURRENT_LIST_DIR}/synthetic.cc
  ${CMAKE_CURRENT_LIST_DIR}/token_balanced.cc)
set(FLOPSPACK_SIM_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/policy_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/simulator_test.cc)
