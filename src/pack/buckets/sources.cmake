# Length buckets, the bucket sampler and the diversity distance.
target_sources(flopspack_objects PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/buckets.cc
  ${CMAKE_CURRENT_LIST_DIR}/bucket_sampler.cc
  ${CMAKE_CURRENT_LIST_DIR}/bucket_stream.cc
  ${CMAKE_CURRENT_LIST_DIR}/diversity.cc)
list(APPEND FLOPSPACK_PACK_TESTS
  ${CMAKE_CURRENT_LIST_DIR}/buckets_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/bucket_sampler_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/bucket_stream_test.cc
  ${CMAKE_CURRENT_LIST_DIR}/diversity_test.cc)
