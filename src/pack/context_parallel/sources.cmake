# Context-parallel sharding: each packed sequence into chunks per CP rank.
target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/context_parallel.cc)
list(APPEND FLOPSPACK_PACK_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/context_parallel_test.cc)
