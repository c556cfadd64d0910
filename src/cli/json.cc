#include "json.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"

namespace flopspack::cli {

Json::Json(uint64_t value) {
  if (value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    type_ = Type::kInt;
    int_ = static_cast<int64_t>(value);
  } else {
    type_ = Type::kDouble;
    double_ = static_cast<double>(value);
  }
}

Json& Json::Push(Json value) {
  items_.push_back(std::move(value));
  return items_.back();
}

Json& Json::Set(const std::string& key, Json value) {
  for (auto& member : members_) {
    if (member.first == key) {
      member.second = std::move(value);
      return member.second;
    }
  }
  members_.emplace_back(key, std::move(value));
  return members_.back().second;
}

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

std::string Json::Dump(int indent) const {
  std::string out;
  DumpTo(out, indent, 0);
  if (indent >= 0) out += "\n";
  return out;
}

void Json::DumpTo(std::string& out, int indent, int depth) const {
  const auto newline = [&](int level) {
    if (indent < 0) return;
    out += '\n';
    out.append(static_cast<size_t>(indent * level), ' ');
  };
  switch (type_) {
    case Type::kNull:
      out += "null";
      break;
    case Type::kBool:
      out += bool_ ? "true" : "false";
      break;
    case Type::kInt:
      out += std::to_string(int_);
      break;
    case Type::kDouble:
      out += std::isfinite(double_) ? FormatShortest(double_) : "null";
      break;
    case Type::kString:
      out += JsonQuote(string_);
      break;
    case Type::kArray: {
      // Arrays of scalars stay on one line: long number lists read better.
      bool scalars = true;
      for (const Json& item : items_) {
        scalars = scalars && item.type_ != Type::kArray && item.type_ != Type::kObject;
      }
      out += '[';
      for (size_t i = 0; i < items_.size(); ++i) {
        if (i > 0) out += scalars || indent < 0 ? ", " : ",";
        if (!scalars) newline(depth + 1);
        items_[i].DumpTo(out, indent, depth + 1);
      }
      if (!scalars && !items_.empty()) newline(depth);
      out += ']';
      break;
    }
    case Type::kObject:
      out += '{';
      for (size_t i = 0; i < members_.size(); ++i) {
        if (i > 0) out += indent < 0 ? ", " : ",";
        newline(depth + 1);
        out += JsonQuote(members_[i].first);
        out += ": ";
        members_[i].second.DumpTo(out, indent, depth + 1);
      }
      if (!members_.empty()) newline(depth);
      out += '}';
      break;
  }
}

}  // namespace flopspack::cli
