# The bounded-memory streaming packer.
target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/stream_packer.cc)
list(APPEND FLOPSPACK_PACK_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/stream_packer_test.cc)
