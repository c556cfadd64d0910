#include "json.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"

namespace flopspack::cli {

Json::Json(uint64_t value) {
  // Above INT64_MAX the value is written as a double, as before.
  if (value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    value_ = static_cast<int64_t>(value);
  } else {
    value_ = static_cast<double>(value);
  }
}

Json::Type Json::type() const {
  switch (value_.type()) {
    case nlohmann::ordered_json::value_t::boolean:
      return Type::kBool;
    case nlohmann::ordered_json::value_t::number_integer:
    case nlohmann::ordered_json::value_t::number_unsigned:
      return Type::kInt;
    case nlohmann::ordered_json::value_t::number_float:
      return Type::kDouble;
    case nlohmann::ordered_json::value_t::string:
      return Type::kString;
    case nlohmann::ordered_json::value_t::array:
      return Type::kArray;
    case nlohmann::ordered_json::value_t::object:
      return Type::kObject;
    default:
      return Type::kNull;
  }
}

void Json::Push(Json value) { value_.push_back(std::move(value.value_)); }

void Json::Set(const std::string& key, Json value) { value_[key] = std::move(value.value_); }

std::string JsonQuote(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += ch;  // UTF-8 passes through unchanged
        }
    }
  }
  return out + "\"";
}

std::string FormatShortest(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

namespace {

bool IsContainer(const nlohmann::ordered_json& v) { return v.is_array() || v.is_object(); }

void DumpTo(const nlohmann::ordered_json& v, std::string& out, int indent, int depth) {
  const auto newline = [&](int level) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * level), ' ');
  };
  switch (v.type()) {
    case nlohmann::ordered_json::value_t::boolean:
      out += v.get<bool>() ? "true" : "false";
      break;
    case nlohmann::ordered_json::value_t::number_integer:
      out += std::to_string(v.get<int64_t>());
      break;
    case nlohmann::ordered_json::value_t::number_unsigned:
      out += std::to_string(v.get<uint64_t>());
      break;
    case nlohmann::ordered_json::value_t::number_float: {
      const double d = v.get<double>();
      out += std::isfinite(d) ? FormatShortest(d) : "null";
      break;
    }
    case nlohmann::ordered_json::value_t::string:
      out += JsonQuote(v.get_ref<const std::string&>());
      break;
    case nlohmann::ordered_json::value_t::array: {
      // Arrays of scalars stay on one line: long number lists read better.
      bool scalars = true;
      for (const auto& item : v) scalars = scalars && !IsContainer(item);
      out += '[';
      size_t i = 0;
      for (const auto& item : v) {
        if (i++ > 0) out += scalars || indent < 0 ? ", " : ",";
        if (!scalars) newline(depth + 1);
        DumpTo(item, out, indent, depth + 1);
      }
      if (!scalars && !v.empty()) newline(depth);
      out += ']';
      break;
    }
    case nlohmann::ordered_json::value_t::object: {
      out += '{';
      size_t i = 0;
      for (const auto& [key, item] : v.items()) {
        if (i++ > 0) out += indent < 0 ? ", " : ",";
        newline(depth + 1);
        out += JsonQuote(key);
        out += ": ";
        DumpTo(item, out, indent, depth + 1);
      }
      if (!v.empty()) newline(depth);
      out += '}';
      break;
    }
    default:
      out += "null";
  }
}

}  // namespace

std::string Json::Dump(int indent) const {
  std::string out;
  DumpTo(value_, out, indent, 0);
  if (indent >= 0) out += "\n";
  return out;
}

}  // namespace flopspack::cli
