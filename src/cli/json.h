// The CLI's --json output: a value of nlohmann-json (ordered_json: keys keep
// insertion order, so output is stable and reads in the order docs/cli.md
// describes) behind the small interface the commands use, and the printer of
// the flopspack-cli/1 layout: arrays of scalars on one line, numbers in the
// shortest form that reads back to the same double (3.0 is "3"), NaN and
// infinities, which JSON cannot hold, as null. nlohmann's own dump() lays
// arrays out one item per line and writes 3.0 as "3.0", so the printer stays
// ours: the output is byte for byte what earlier releases wrote (tested).
#ifndef FLOPSPACK_CLI_JSON_H_
#define FLOPSPACK_CLI_JSON_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace flopspack::cli {

class Json {
 public:
  enum class Type { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  Json() = default;
  Json(bool value) : value_(value) {}                      // NOLINT: implicit by design
  Json(int value) : value_(int64_t{value}) {}              // NOLINT
  Json(int64_t value) : value_(value) {}                   // NOLINT
  Json(uint64_t value);                                    // NOLINT
  Json(double value) : value_(value) {}                    // NOLINT
  Json(const char* value) : value_(std::string(value)) {}  // NOLINT
  Json(std::string value) : value_(std::move(value)) {}    // NOLINT

  static Json Array() { return Json(nlohmann::ordered_json::array()); }
  static Json Object() { return Json(nlohmann::ordered_json::object()); }
  // A value built with nlohmann-json directly (e.g. by cost_file.cc).
  static Json From(nlohmann::ordered_json value) { return Json(std::move(value)); }
  template <typename T>
  static Json ArrayOf(const std::vector<T>& values) {
    Json out = Array();
    for (const T& value : values) out.Push(Json(value));
    return out;
  }

  Type type() const;
  // Appends to an array.
  void Push(Json value);
  // Sets a key of an object (replacing an existing one in place).
  void Set(const std::string& key, Json value);

  // indent < 0: one line; otherwise pretty-printed with that many spaces.
  std::string Dump(int indent = 2) const;

  // The value itself (nlohmann-json, keys in insertion order).
  const nlohmann::ordered_json& value() const { return value_; }

 private:
  explicit Json(nlohmann::ordered_json value) : value_(std::move(value)) {}

  nlohmann::ordered_json value_;
};

// JSON string literal (with quotes) for s.
std::string JsonQuote(const std::string& s);
// The shortest decimal that reads back to value ("1e+300", "0.1", "3").
std::string FormatShortest(double value);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_JSON_H_
