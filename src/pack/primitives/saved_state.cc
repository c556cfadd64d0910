#include "pack/primitives/saved_state.h"

#include <cstring>

#include "absl/strings/str_format.h"

namespace flopspack::pack {
namespace {

constexpr size_t kMagicBytes = sizeof(StateFormat::magic);

uint64_t LoadU64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  return v;
}

}  // namespace

absl::Status CorruptState(const StateFormat& format, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrFormat("%s state: %s (not bytes saved by this library's %s, or corrupted)",
                      format.name, what, format.name));
}

uint64_t Fnv1a64(absl::string_view bytes) {
  uint64_t hash = 0xCBF29CE484222325ull;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001B3ull;
  }
  return hash;
}

StateWriter::StateWriter(const StateFormat& format) {
  out_.append(format.magic, kMagicBytes);
  U64(format.version);
}

void StateWriter::U64(uint64_t v) {
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void StateWriter::F64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  U64(bits);
}

std::string StateWriter::Finish() && {
  const uint64_t checksum = Fnv1a64(out_);
  U64(checksum);
  return std::move(out_);
}

absl::StatusOr<StateReader> StateReader::Open(absl::string_view bytes, const StateFormat& format) {
  if (bytes.size() < kMagicBytes + 16) {
    return CorruptState(format, absl::StrFormat("%u bytes is too short", bytes.size()));
  }
  if (std::memcmp(bytes.data(), format.magic, kMagicBytes) != 0) {
    return CorruptState(format, "bad magic");
  }
  const absl::string_view body = bytes.substr(0, bytes.size() - 8);
  if (Fnv1a64(body) != LoadU64(bytes.data() + body.size())) {
    return CorruptState(format, "checksum mismatch");
  }
  const uint64_t version = LoadU64(bytes.data() + kMagicBytes);
  const uint64_t oldest = format.oldest_version == 0 ? format.version : format.oldest_version;
  if (version < oldest || version > format.version) {
    if (oldest == format.version) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s state: format version %u, this library reads version %u", format.name,
                          version, format.version));
    }
    return absl::InvalidArgumentError(
        absl::StrFormat("%s state: format version %u, this library reads versions %u to %u",
                        format.name, version, oldest, format.version));
  }
  return StateReader(body.substr(kMagicBytes + 8), format, version);
}

bool StateReader::U64(uint64_t* v) {
  if (remaining() < 8) return false;
  *v = LoadU64(fields_.data() + pos_);
  pos_ += 8;
  return true;
}

bool StateReader::I64(int64_t* v) {
  uint64_t u;
  if (!U64(&u)) return false;
  *v = static_cast<int64_t>(u);
  return true;
}

bool StateReader::F64(double* v) {
  uint64_t u;
  if (!U64(&u)) return false;
  std::memcpy(v, &u, sizeof(*v));
  return true;
}

bool StateReader::Count(uint64_t record_bytes, uint64_t* n) {
  if (!U64(n)) return false;
  return *n <= remaining() / record_bytes;
}

absl::Status StateReader::Corrupt(absl::string_view what) const {
  return CorruptState(*format_, what);
}

}  // namespace flopspack::pack
