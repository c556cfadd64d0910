#include "pack/primitives/saved_state.h"

#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace flopspack::pack {
namespace {

bool Contains(absl::string_view text, absl::string_view part) {
  return text.find(part) != absl::string_view::npos;
}

constexpr StateFormat kFormat = {{'T', 'E', 'S', 'T', 'S', 'T', 'A', 'T'}, 3, "test object"};

std::string Sample() {
  StateWriter w(kFormat);
  w.U64(42);
  w.I64(-7);
  w.F64(0.1);
  w.U64(2);  // a count of two 8-byte records
  w.I64(1);
  w.I64(2);
  return std::move(w).Finish();
}

TEST(SavedStateTest, RoundTrip) {
  const std::string bytes = Sample();
  // magic + version + 6 fields + checksum
  ASSERT_EQ(bytes.size(), 8u + 8u + 6 * 8u + 8u);
  EXPECT_EQ(bytes.substr(0, 8), "TESTSTAT");
  EXPECT_EQ(bytes[8], 3);  // little-endian version
  absl::StatusOr<StateReader> r = StateReader::Open(bytes, kFormat);
  ASSERT_TRUE(r.ok()) << r.status();
  uint64_t u = 0, n = 0;
  int64_t i = 0, a = 0, b = 0;
  double d = 0;
  ASSERT_TRUE(r->U64(&u) && r->I64(&i) && r->F64(&d) && r->Count(8, &n) && r->I64(&a) &&
              r->I64(&b));
  EXPECT_EQ(u, 42u);
  EXPECT_EQ(i, -7);
  EXPECT_EQ(d, 0.1);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  EXPECT_EQ(r->remaining(), 0u);
  EXPECT_FALSE(r->U64(&u));  // nothing left
}

TEST(SavedStateTest, EveryFlippedByteIsRejected) {
  const std::string bytes = Sample();
  for (size_t k = 0; k < bytes.size(); ++k) {
    std::string bad = bytes;
    bad[k] = static_cast<char>(bad[k] ^ 0x10);
    EXPECT_FALSE(StateReader::Open(bad, kFormat).ok()) << "byte " << k;
  }
}

TEST(SavedStateTest, MessagesSayWhatIsWrong) {
  const std::string bytes = Sample();
  EXPECT_TRUE(Contains(StateReader::Open(bytes.substr(0, 20), kFormat).status().message(),
                       "test object state: 20 bytes is too short"));
  std::string foreign = bytes;
  foreign[0] = 'X';
  EXPECT_EQ(StateReader::Open(foreign, kFormat).status().message(),
            "test object state: bad magic (not bytes saved by this library's test object, or "
            "corrupted)");
  std::string flipped = bytes;
  flipped[20] ^= 1;
  EXPECT_TRUE(
      Contains(StateReader::Open(flipped, kFormat).status().message(), "checksum mismatch"));
  StateFormat newer = kFormat;
  newer.version = 4;
  StateWriter w(newer);
  EXPECT_EQ(StateReader::Open(std::move(w).Finish(), kFormat).status().message(),
            "test object state: format version 4, this library reads version 3");
}

// A format that still reads older versions accepts each of them (and says
// which one it read), and names the range when it refuses one.
TEST(SavedStateTest, ReadsTheVersionsOfItsRange) {
  StateFormat reads_two = kFormat;
  reads_two.oldest_version = 2;
  for (uint64_t version : {uint64_t{2}, uint64_t{3}}) {
    StateFormat writer = kFormat;
    writer.version = version;
    StateWriter w(writer);
    w.I64(-7);
    // The reader views the bytes: they must outlive it.
    const std::string bytes = std::move(w).Finish();
    absl::StatusOr<StateReader> r = StateReader::Open(bytes, reads_two);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->version(), version);
    int64_t v = 0;
    EXPECT_TRUE(r->I64(&v));
    EXPECT_EQ(v, -7);
  }
  for (uint64_t version : {uint64_t{1}, uint64_t{4}}) {
    StateFormat writer = kFormat;
    writer.version = version;
    StateWriter w(writer);
    EXPECT_EQ(StateReader::Open(std::move(w).Finish(), reads_two).status().message(),
              absl::StrFormat("test object state: format version %d, this library reads "
                              "versions 2 to 3",
                              version));
  }
  EXPECT_EQ(StateReader::Open(Sample(), kFormat)->version(), 3u);
}

// A count larger than the bytes left could hold is refused before anyone
// allocates for it.
TEST(SavedStateTest, CountIsBoundedByTheBytesLeft) {
  StateWriter w(kFormat);
  w.U64(uint64_t{1} << 60);
  w.I64(1);
  const std::string bytes = std::move(w).Finish();
  absl::StatusOr<StateReader> r = StateReader::Open(bytes, kFormat);
  ASSERT_TRUE(r.ok());
  uint64_t n = 0;
  EXPECT_FALSE(r->Count(8, &n));
}

}  // namespace
}  // namespace flopspack::pack
