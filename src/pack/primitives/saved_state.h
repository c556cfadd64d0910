// The saved-state format of every object that can be saved and restored
// (the streaming step planner, the stream packer): one codec, so the two
// formats cannot drift apart.
//
// Bytes: an 8-byte magic naming the object, the format version (u64), the
// object's fields as little-endian 64-bit words (u64, i64, or the IEEE bits
// of a double), and an FNV-1a 64 checksum of everything before it (u64).
// The checksum detects corruption, not an adversary (anyone can reseal), so
// every object validates what it reads as if it were hostile: counts are
// bounded by the bytes left (a corrupted count cannot make it allocate
// gigabytes), values by what the object itself could have produced.
// Complexity: O(bytes). Reference: Fowler–Noll–Vo hash, FNV-1a variant
// (IETF draft-eastlake-fnv).
#ifndef FLOPSPACK_PACK_PRIMITIVES_SAVED_STATE_H_
#define FLOPSPACK_PACK_PRIMITIVES_SAVED_STATE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace flopspack::pack {

// What identifies one object's format: its magic, the version this library
// writes, the name its error messages use ("step planner"), and the oldest
// version it still reads (0 = only `version`; the object then reads each
// older layout itself, StateReader::version() tells which).
struct StateFormat {
  char magic[8];
  uint64_t version;
  const char* name;
  uint64_t oldest_version = 0;
};

uint64_t Fnv1a64(absl::string_view bytes);

// "<name> state: <what> (not bytes saved by this library's <name>, or
// corrupted)", InvalidArgument: what every rejected state says.
absl::Status CorruptState(const StateFormat& format, absl::string_view what);

class StateWriter {
 public:
  explicit StateWriter(const StateFormat& format);
  void U64(uint64_t v);
  void I64(int64_t v) { U64(static_cast<uint64_t>(v)); }
  void F64(double v);
  // Appends the checksum and returns the bytes.
  std::string Finish() &&;

 private:
  std::string out_;
};

class StateReader {
 public:
  // Checks length, magic, checksum and version (oldest_version ..
  // version), in that order; the reader then yields the fields between the
  // version and the checksum.
  static absl::StatusOr<StateReader> Open(absl::string_view bytes, const StateFormat& format);

  // Each returns false (and reads nothing) when fewer than 8 bytes are left.
  bool U64(uint64_t* v);
  bool I64(int64_t* v);
  bool F64(double* v);
  // A count of records of at least record_bytes each: false unless they can
  // all fit in the bytes left.
  bool Count(uint64_t record_bytes, uint64_t* n);
  size_t remaining() const { return fields_.size() - pos_; }
  // The version the bytes were written in.
  uint64_t version() const { return version_; }

  // CorruptState(format, what).
  absl::Status Corrupt(absl::string_view what) const;

 private:
  StateReader(absl::string_view fields, const StateFormat& format, uint64_t version)
      : fields_(fields), format_(&format), version_(version) {}
  absl::string_view fields_;
  size_t pos_ = 0;
  const StateFormat* format_;
  uint64_t version_;
};

}  // namespace flopspack::pack

#endif  // FLOPSPACK_PACK_PRIMITIVES_SAVED_STATE_H_
