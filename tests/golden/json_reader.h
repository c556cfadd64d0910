// The golden vectors as a tree of Values (tests only), parsed by nlohmann-json.
// Integers (no '.', 'e' or 'E') keep their exact int64 value; other numbers
// are read with correct rounding, so a double written with 17 significant
// digits comes back bit for bit.
#ifndef FLOPSPACK_TESTS_GOLDEN_JSON_READER_H_
#define FLOPSPACK_TESTS_GOLDEN_JSON_READER_H_

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace golden {

struct Value {
  enum Kind { kNull, kBool, kInt, kDouble, kString, kArray, kObject } kind = kNull;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0;
  std::string text;
  std::vector<Value> items;
  std::map<std::string, Value> fields;

  const Value& operator[](const std::string& key) const {
    auto it = fields.find(key);
    if (kind != kObject || it == fields.end()) throw std::runtime_error("missing key " + key);
    return it->second;
  }
  bool has(const std::string& key) const { return kind == kObject && fields.count(key) > 0; }
  double AsDouble() const {
    if (kind == kInt) return static_cast<double>(integer);
    if (kind == kString && text == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (kind != kDouble) throw std::runtime_error("not a number");
    return number;
  }
  int64_t AsInt() const {
    if (kind != kInt) throw std::runtime_error("not an integer");
    return integer;
  }
  std::vector<int64_t> AsInts() const {
    std::vector<int64_t> out;
    for (const Value& v : items) out.push_back(v.AsInt());
    return out;
  }
  std::vector<double> AsDoubles() const {
    std::vector<double> out;
    for (const Value& v : items) out.push_back(v.AsDouble());
    return out;
  }
};

namespace detail {

inline Value Convert(const nlohmann::json& j) {
  Value v;
  switch (j.type()) {
    case nlohmann::json::value_t::boolean:
      v.kind = Value::kBool;
      v.boolean = j.get<bool>();
      break;
    case nlohmann::json::value_t::number_integer:
      v.kind = Value::kInt;
      v.integer = j.get<int64_t>();
      break;
    case nlohmann::json::value_t::number_unsigned:
      if (j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        throw std::runtime_error("JSON: integer " + j.dump() + " does not fit in int64");
      }
      v.kind = Value::kInt;
      v.integer = static_cast<int64_t>(j.get<uint64_t>());
      break;
    case nlohmann::json::value_t::number_float:
      v.kind = Value::kDouble;
      v.number = j.get<double>();
      break;
    case nlohmann::json::value_t::string:
      v.kind = Value::kString;
      v.text = j.get<std::string>();
      break;
    case nlohmann::json::value_t::array:
      v.kind = Value::kArray;
      for (const nlohmann::json& item : j) v.items.push_back(Convert(item));
      break;
    case nlohmann::json::value_t::object:
      v.kind = Value::kObject;
      for (const auto& [key, item] : j.items()) v.fields[key] = Convert(item);
      break;
    default:
      break;
  }
  return v;
}

}  // namespace detail

// Parses with nlohmann-json (Debian nlohmann-json3-dev), the JSON library the
// CLI uses too; a syntax error throws std::runtime_error with its offset.
inline Value Parse(const std::string& text) {
  try {
    return detail::Convert(nlohmann::json::parse(text));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("JSON: ") + e.what());
  }
}

}  // namespace golden

#endif  // FLOPSPACK_TESTS_GOLDEN_JSON_READER_H_
