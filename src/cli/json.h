// A small JSON value for the CLI's --json output: null, bool, integer,
// number, string, array and object (keys keep insertion order, so output is
// stable and reads in the order docs/cli.md describes). Numbers are written
// in the shortest form that reads back to the same double; NaN and
// infinities, which JSON cannot hold, are written as null.
#ifndef FLOPSPACK_CLI_JSON_H_
#define FLOPSPACK_CLI_JSON_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace flopspack::cli {

class Json {
 public:
  enum class Type { kNull, kBool, kInt, kDouble, kString, kArray, kObject };

  Json() = default;
  Json(bool value) : type_(Type::kBool), bool_(value) {}             // NOLINT: implicit by design
  Json(int value) : type_(Type::kInt), int_(value) {}                // NOLINT
  Json(int64_t value) : type_(Type::kInt), int_(value) {}            // NOLINT
  Json(uint64_t value);                                              // NOLINT
  Json(double value) : type_(Type::kDouble), double_(value) {}       // NOLINT
  Json(const char* value) : type_(Type::kString), string_(value) {}  // NOLINT
  Json(std::string value) : type_(Type::kString), string_(std::move(value)) {}  // NOLINT

  static Json Array() { return Json(Type::kArray); }
  static Json Object() { return Json(Type::kObject); }
  template <typename T>
  static Json ArrayOf(const std::vector<T>& values) {
    Json out = Array();
    for (const T& value : values) out.Push(Json(value));
    return out;
  }

  Type type() const { return type_; }
  // Appends to an array.
  Json& Push(Json value);
  // Sets a key of an object (replacing an existing one in place).
  Json& Set(const std::string& key, Json value);

  // indent < 0: one line; otherwise pretty-printed with that many spaces.
  std::string Dump(int indent = 2) const;

 private:
  explicit Json(Type type) : type_(type) {}
  void DumpTo(std::string& out, int indent, int depth) const;

  Type type_ = Type::kNull;
  bool bool_ = false;
  int64_t int_ = 0;
  double double_ = 0;
  std::string string_;
  std::vector<Json> items_;
  std::vector<std::pair<std::string, Json>> members_;
};

// JSON string literal (with quotes) for s.
std::string JsonQuote(const std::string& s);
// The shortest decimal that reads back to value ("1e+300", "0.1", "3").
std::string FormatShortest(double value);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_JSON_H_
