target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/compare.cc
  ${CMAKE_CURRENT_LIST_DIR}/histogram.cc
  ${CMAKE_CURRENT_LIST_DIR}/length_reference.cc
  ${CMAKE_CURRENT_LIST_DIR}/length_stats.cc
  ${CMAKE_CURRENT_LIST_DIR}/order_statistics.cc)
set(FLOPSPACK_STATS_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/compare_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/length_reference_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/length_stats_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/order_statistics_test.cc)
