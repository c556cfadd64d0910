// A minimal JSON reader for the golden vectors (tests only): objects,
// arrays, strings without escapes beyond \" and \\, numbers, true/false/null.
// Integers (no '.', 'e' or 'E') keep their exact int64 value; other numbers
// are read with strtod, which rounds correctly, so a double written with 17
// significant digits comes back bit for bit.
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

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}
  Value Parse() {
    Value v = ParseValue();
    Skip();
    if (i_ != s_.size()) Fail("trailing characters");
    return v;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void Skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
      ++i_;
  }
  void Expect(char c) {
    Skip();
    if (i_ >= s_.size() || s_[i_] != c) Fail(std::string("expected ") + c);
    ++i_;
  }
  std::string ParseString() {
    Expect('"');
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\') ++i_;
      out += s_[i_++];
    }
    Expect('"');
    return out;
  }
  Value ParseValue() {
    Skip();
    if (i_ >= s_.size()) Fail("unexpected end");
    Value v;
    const char c = s_[i_];
    if (c == '{') {
      v.kind = Value::kObject;
      ++i_;
      Skip();
      if (s_[i_] == '}') return ++i_, v;
      for (;;) {
        std::string key = ParseString();
        Expect(':');
        v.fields[key] = ParseValue();
        Skip();
        if (s_[i_] == ',') {
          ++i_;
          continue;
        }
        Expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = Value::kArray;
      ++i_;
      Skip();
      if (s_[i_] == ']') return ++i_, v;
      for (;;) {
        v.items.push_back(ParseValue());
        Skip();
        if (s_[i_] == ',') {
          ++i_;
          continue;
        }
        Expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = Value::kString;
      v.text = ParseString();
      return v;
    }
    for (const char* word : {"true", "false", "null"}) {
      if (s_.compare(i_, std::string(word).size(), word) == 0) {
        i_ += std::string(word).size();
        v.kind = word[0] == 'n' ? Value::kNull : Value::kBool;
        v.boolean = word[0] == 't';
        return v;
      }
    }
    const size_t start = i_;
    while (i_ < s_.size() && std::string("+-0123456789.eE").find(s_[i_]) != std::string::npos) ++i_;
    const std::string number = s_.substr(start, i_ - start);
    if (number.empty()) Fail("unexpected character");
    if (number.find_first_of(".eE") == std::string::npos) {
      v.kind = Value::kInt;
      v.integer = std::stoll(number);
    } else {
      v.kind = Value::kDouble;
      v.number = std::strtod(number.c_str(), nullptr);
    }
    return v;
  }

  const std::string& s_;
  size_t i_ = 0;
};

inline Value Parse(const std::string& text) { return Parser(text).Parse(); }

}  // namespace golden

#endif  // FLOPSPACK_TESTS_GOLDEN_JSON_READER_H_
