// Case counts of the randomized and brute-force tests under a sanitizer.
//
// tests/CMakeLists.txt defines FLOPSPACK_SANITIZED for the core test
// binaries when CMAKE_CXX_FLAGS hold -fsanitize= (CI's ASan + UBSan tree).
// There the instrumented code runs 3-10x slower, and the sanitizer's job is
// memory and undefined-behaviour errors, which a few hundred random cases
// reach as well as thousands: the same generators, the same assertions, the
// first `sanitized` cases of the same seeded sequence. The GCC tree runs the
// full counts, where the counts set a test's power. Each test that uses this
// says in a comment why its smaller count still fails a wrong implementation.
#ifndef FLOPSPACK_TESTS_SUPPORT_CASES_H_
#define FLOPSPACK_TESTS_SUPPORT_CASES_H_

namespace flopspack::test_support {

#ifdef FLOPSPACK_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// `full` cases in an uninstrumented build, `sanitized` under a sanitizer.
constexpr int CasesUnderSanitizer(int full, int sanitized) { return kSanitized ? sanitized : full; }

}  // namespace flopspack::test_support

#endif  // FLOPSPACK_TESTS_SUPPORT_CASES_H_
