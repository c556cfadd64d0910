// The extern "C" boundary's shared machinery: the thread-local error detail,
// mapping absl::Status to flopspack_status, the guard that keeps every
// exception inside the library, option-struct versioning, and argument
// checks. Every entry point is `return Guard([&] { ... });`.
#ifndef FLOPSPACK_CAPI_CAPI_UTIL_H_
#define FLOPSPACK_CAPI_CAPI_UTIL_H_

#include <cstdint>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <new>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "flopspack/flopspack.h"

namespace flopspack::capi {

const char* last_error_message();
// Records the detail message for the calling thread and returns the status.
flopspack_status SetError(flopspack_status status, std::string message);
// Maps a core Status (see docs/errors.md for the table) and records it.
flopspack_status FromStatus(const absl::Status& status);

// Runs body (which returns flopspack_status) converting any escaping
// exception into a status with a message.
template <typename Body>
flopspack_status Guard(Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return SetError(FLOPSPACK_OUT_OF_MEMORY, "out of memory");
  } catch (const std::length_error& e) {
    return SetError(FLOPSPACK_OUT_OF_MEMORY, std::string("allocation too large: ") + e.what());
  } catch (const std::exception& e) {
    return SetError(FLOPSPACK_INTERNAL, std::string("internal error: ") + e.what());
  } catch (...) {
    return SetError(FLOPSPACK_INTERNAL, "internal error: unknown exception");
  }
}

// NULL check for a required pointer argument.
inline flopspack_status RequireNonNull(const void* pointer, const char* name) {
  if (pointer != nullptr) return FLOPSPACK_OK;
  return SetError(FLOPSPACK_INVALID_ARGUMENT, absl::StrFormat("%s must not be NULL", name));
}

// A C enum value into a core enum: the only way C values become core enums.
// INVALID_ARGUMENT with `message` unless value is one of `allowed` (the
// values this entry point takes); the core never sees a value outside them.
template <typename Core>
flopspack_status ReadEnum(int value, std::initializer_list<int> allowed, const std::string& message,
                          Core* out) {
  for (int a : allowed) {
    if (value == a) {
      *out = static_cast<Core>(value);
      return FLOPSPACK_OK;
    }
  }
  return SetError(FLOPSPACK_INVALID_ARGUMENT, message);
}

// An input array: data may be NULL only when n == 0, and n * element_size
// must be addressable.
flopspack_status RequireArray(const void* data, size_t n, size_t element_size, const char* name);

// Reads a versioned options struct into *out (which already holds the
// defaults): struct_size 0 or too small to hold struct_size is rejected; a
// smaller struct keeps defaults for the fields it lacks; a larger struct
// must have an all-zero unknown tail.
template <typename T>
flopspack_status ReadOptions(const T* in, T* out, const char* name) {
  if (in == nullptr) return FLOPSPACK_OK;  // NULL = all defaults
  const uint32_t size = in->struct_size;
  if (size < sizeof(uint32_t)) {
    return SetError(FLOPSPACK_INVALID_ARGUMENT,
                    absl::StrFormat("%s->struct_size = %u: set it to sizeof(%s) or call the "
                                    "_init() function",
                                    name, size, name));
  }
  if (size > sizeof(T)) {
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(in);
    for (size_t i = sizeof(T); i < size; ++i) {
      if (bytes[i] != 0) {
        return SetError(FLOPSPACK_INVALID_ARGUMENT,
                        absl::StrFormat("%s->struct_size = %u is larger than this library "
                                        "knows (%u) and byte %u of the unknown tail is "
                                        "non-zero: a newer option this version cannot honour",
                                        name, size, sizeof(T), i));
      }
    }
  }
  const size_t copy = size < sizeof(T) ? size : sizeof(T);
  std::memcpy(reinterpret_cast<unsigned char*>(out) + sizeof(uint32_t),
              reinterpret_cast<const unsigned char*>(in) + sizeof(uint32_t),
              copy - sizeof(uint32_t));
  out->struct_size = sizeof(T);
  return FLOPSPACK_OK;
}

// Writes an output struct: as many bytes as both sides know, keeping the
// caller's struct_size. *out must have struct_size set by the caller.
template <typename T>
flopspack_status WriteOutput(const T& full, T* out, const char* name) {
  const uint32_t size = out->struct_size;
  if (size < sizeof(uint32_t)) {
    return SetError(FLOPSPACK_INVALID_ARGUMENT,
                    absl::StrFormat("%s->struct_size = %u: set it to sizeof(%s) before the call",
                                    name, size, name));
  }
  const size_t copy = size < sizeof(T) ? size : sizeof(T);
  std::memcpy(reinterpret_cast<unsigned char*>(out) + sizeof(uint32_t),
              reinterpret_cast<const unsigned char*>(&full) + sizeof(uint32_t),
              copy - sizeof(uint32_t));
  return FLOPSPACK_OK;
}

}  // namespace flopspack::capi

#endif  // FLOPSPACK_CAPI_CAPI_UTIL_H_
