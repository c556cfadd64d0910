# Sequence packing: documents into fixed-capacity sequences (overflow, costs).
target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/packer.cc)
list(APPEND FLOPSPACK_PACK_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/packer_test.cc)
