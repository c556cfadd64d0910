target_sources(flopspack_objects PRIVATE ${CMAKE_CURRENT_LIST_DIR}/checked.cc
                                         ${CMAKE_CURRENT_LIST_DIR}/huge_pages.cc
                                         ${CMAKE_CURRENT_LIST_DIR}/validate.cc)
set(FLOPSPACK_UTIL_TESTS ${CMAKE_CURRENT_LIST_DIR}/checked_test.cc
                         ${CMAKE_CURRENT_LIST_DIR}/huge_pages_test.cc
                         ${CMAKE_CURRENT_LIST_DIR}/large_buffer_test.cc
                         ${CMAKE_CURRENT_LIST_DIR}/random_test.cc
                         ${CMAKE_CURRENT_LIST_DIR}/scratch_arena_test.cc
                         ${CMAKE_CURRENT_LIST_DIR}/validate_test.cc
                         ${CMAKE_CURRENT_LIST_DIR}/vector_pool_test.cc)
