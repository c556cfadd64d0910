# src/pack: one sub-folder per problem plus the shared primitives
# (docs/development.md, "Layout"). Each folder lists its own sources and
# appends its tests to FLOPSPACK_PACK_TESTS (one pack_test binary).
foreach(_pack_folder primitives binpack balance planner buckets stream context_parallel)
  include(${CMAKE_CURRENT_LIST_DIR}/${_pack_folder}/sources.cmake)
endforeach()
