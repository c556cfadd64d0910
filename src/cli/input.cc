#include "input.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "status.h"

namespace flopspack::cli {
namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";

// Values are quoted in messages; a long or binary one is cut and escaped.
std::string Quote(absl::string_view value) {
  std::string shown = absl::CHexEscape(value.substr(0, 40));
  if (value.size() > 40) shown += "...";
  return "'" + shown + "'";
}

// Parses one length; on failure throws "<where>: '<value>' is not a length".
int64_t ParseLength(absl::string_view text, const std::string& where) {
  int64_t value = 0;
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  if (!absl::SimpleAtoi(trimmed, &value)) {
    const absl::string_view digits = absl::StripPrefix(trimmed, "+");
    const bool all_digits =
        !digits.empty() &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (all_digits) {
      throw InputError(absl::StrFormat(
          "%s: %s is too large for a length: at most 9223372036854775807 (a 64-bit integer)", where,
          Quote(text)));
    }
    if (trimmed.size() > 1 && trimmed[0] == '-' &&
        std::all_of(trimmed.begin() + 1, trimmed.end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
      throw InputError(absl::StrFormat("%s: %s is not a length: every length must be positive",
                                       where, Quote(text)));
    }
    throw InputError(
        absl::StrFormat("%s: %s is not a length: expected a positive integer", where, Quote(text)));
  }
  if (value <= 0) {
    throw InputError(absl::StrFormat("%s: %s is not a length: every length must be positive", where,
                                     Quote(text)));
  }
  return value;
}

void RequireNonEmpty(const Lengths& lengths) {
  if (lengths.values.empty()) {
    throw InputError(absl::StrFormat("%s: no lengths found (empty input)", lengths.source));
  }
}

// Splits one CSV record (RFC 4180 quoting within a line).
std::vector<std::string> SplitRecord(absl::string_view line, char delimiter,
                                     const std::string& where) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == delimiter) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) throw InputError(where + ": unterminated quoted field");
  return fields;
}

// Lines without their terminator (\n or \r\n), numbered from 1.
template <typename Fn>
void ForEachLine(const std::string& bytes, Fn&& fn) {
  size_t start = 0;
  int64_t number = 0;
  while (start < bytes.size()) {
    size_t end = bytes.find('\n', start);
    if (end == std::string::npos) end = bytes.size();
    absl::string_view line(bytes.data() + start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(++number, line);
    start = end + 1;
  }
}

// Reads the whole input. Unless it is a .npy array (by the magic of its
// first bytes), a line longer than max_line is rejected as soon as it has
// been read, naming the line: a 2 GB line is no length, and reading all of
// it first took 3.9 GB (issue 21). max_line 0 = no limit.
std::string ReadAll(const std::string& path, const std::string& source, size_t max_line) {
  std::ifstream file;
  std::istream* in = &std::cin;
  if (path != "-") {
    struct stat info;
    if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
      throw InputError(absl::StrFormat(
          "%s: is a directory; LENGTHS is a file of lengths (text, CSV with --column, or .npy) "
          "or - for standard input",
          path));
    }
    file.open(path, std::ios::binary);
    if (!file) {
      throw InputError(absl::StrFormat("%s: cannot open: %s", path, std::strerror(errno)));
    }
    in = &file;
  }
  std::string bytes;
  std::vector<char> chunk(size_t{1} << 20);
  bool binary = false;
  size_t line_start = 0;  // offset of the current line's first byte
  int64_t line = 1;
  while (*in) {
    in->read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const size_t got = static_cast<size_t>(in->gcount());
    if (got == 0) break;
    const size_t old_size = bytes.size();
    bytes.append(chunk.data(), got);
    if (old_size < 6 && bytes.size() >= 6) binary = bytes.compare(0, 6, kNpyMagic) == 0;
    if (max_line == 0 || binary) continue;
    auto too_long = [&] {
      return InputError(absl::StrFormat(
          "%s:%d: the line is longer than %d bytes: not a length (is this a text file of "
          "lengths?)",
          source, line, max_line));
    };
    for (size_t i = old_size; i < bytes.size(); ++i) {
      if (bytes[i] != '\n') continue;
      if (i - line_start > max_line) throw too_long();
      line_start = i + 1;
      ++line;
    }
    if (bytes.size() - line_start > max_line) throw too_long();  // still open
  }
  if (in->bad()) {
    throw InputError(absl::StrFormat("%s: read error: %s", source, std::strerror(errno)));
  }
  return bytes;
}

}  // namespace

std::string Lengths::Where(size_t i) const {
  if (i < lines.size()) return absl::StrCat(source, ":", lines[i]);
  return absl::StrCat(source, " element ", i);
}

Lengths ParseText(const std::string& source, const std::string& bytes) {
  Lengths lengths;
  lengths.source = source;
  lengths.format = InputFormat::kText;
  ForEachLine(bytes, [&](int64_t number, absl::string_view line) {
    const absl::string_view trimmed = absl::StripAsciiWhitespace(line);
    if (trimmed.empty() || trimmed[0] == '#') return;  // blank lines and comments
    lengths.values.push_back(ParseLength(line, absl::StrCat(source, ":", number)));
    lengths.lines.push_back(number);
  });
  RequireNonEmpty(lengths);
  return lengths;
}

Lengths ParseCsv(const std::string& source, const std::string& bytes, const std::string& column,
                 char delimiter) {
  Lengths lengths;
  lengths.source = source;
  lengths.format = InputFormat::kCsv;
  std::vector<std::string> header;
  size_t index = 0;
  ForEachLine(bytes, [&](int64_t number, absl::string_view line) {
    const std::string where = absl::StrCat(source, ":", number);
    if (absl::StripAsciiWhitespace(line).empty()) return;
    std::vector<std::string> fields = SplitRecord(line, delimiter, where);
    if (header.empty()) {
      // The first record is the header; pick the column.
      header = fields;
      for (std::string& name : header) name = std::string(absl::StripAsciiWhitespace(name));
      bool found = false;
      for (size_t i = 0; i < header.size() && !found; ++i) {
        if (column.empty() ? header.size() == 1 : header[i] == column) {
          index = i;
          found = true;
        }
      }
      size_t position = 0;
      if (!found && !column.empty() && absl::SimpleAtoi(column, &position) && position >= 1) {
        if (position > header.size()) {
          throw InputError(absl::StrFormat("%s: --column=%s but the header has %d columns", where,
                                           column, header.size()));
        }
        index = position - 1;
        found = true;
      }
      if (!found && column.empty()) {
        for (const char* guess : {"length", "lengths", "num_tokens", "tokens", "len"}) {
          for (size_t i = 0; i < header.size() && !found; ++i) {
            if (absl::EqualsIgnoreCase(header[i], guess)) {
              index = i;
              found = true;
            }
          }
        }
      }
      if (!found) {
        throw InputError(absl::StrFormat(
            "%s: %s; the header's columns are: %s", where,
            column.empty() ? "several columns and none named length: choose one with --column"
                           : absl::StrCat("no column named ", Quote(column)),
            absl::StrJoin(header, ", ")));
      }
      lengths.column = header[index];
      return;
    }
    if (index >= fields.size()) {
      throw InputError(absl::StrFormat("%s: the record has %d fields, column %s is field %d", where,
                                       fields.size(), Quote(lengths.column), index + 1));
    }
    lengths.values.push_back(ParseLength(fields[index], where));
    lengths.lines.push_back(number);
  });
  RequireNonEmpty(lengths);
  return lengths;
}

Lengths ParseNpy(const std::string& source, const std::string& bytes) {
  Lengths lengths;
  lengths.source = source;
  lengths.format = InputFormat::kNpy;
  auto fail = [&](const std::string& what) {
    return InputError(absl::StrFormat("%s: not a valid .npy file: %s", source, what));
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, kNpyMagic) != 0) throw fail("bad magic");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, offset = 0;
  auto byte = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(bytes[i])); };
  if (major == 1) {
    header_len = byte(8) | byte(9) << 8;
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw fail("truncated header");
    header_len = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
    offset = 12;
  } else {
    throw fail(absl::StrCat("unknown format version ", major));
  }
  if (bytes.size() < offset + header_len) throw fail("truncated header");
  const std::string header = bytes.substr(offset, header_len);
  offset += header_len;

  // The header is a Python dict literal: {'descr': '<i8', 'fortran_order':
  // False, 'shape': (1000,), }. Read the three keys it always has.
  auto value_of = [&](const std::string& key) -> std::string {
    const size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) throw fail("header has no '" + key + "'");
    size_t v = header.find(':', k);
    if (v == std::string::npos) throw fail("header has no value for '" + key + "'");
    ++v;
    while (v < header.size() && header[v] == ' ') ++v;
    size_t end = v;
    if (header[v] == '(') {
      end = header.find(')', v);
      if (end == std::string::npos) throw fail("unterminated shape");
      return header.substr(v + 1, end - v - 1);
    }
    if (header[v] == '\'') {
      end = header.find('\'', v + 1);
      if (end == std::string::npos) throw fail("unterminated descr");
      return header.substr(v + 1, end - v - 1);
    }
    while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
    return std::string(absl::StripAsciiWhitespace(header.substr(v, end - v)));
  };
  const std::string descr = value_of("descr");
  // fortran_order does not matter: only 1-D arrays are accepted.
  size_t count = 1;
  int dims = 0;
  for (absl::string_view part : absl::StrSplit(value_of("shape"), ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.empty()) continue;
    size_t extent = 0;
    if (!absl::SimpleAtoi(part, &extent)) throw fail("bad shape");
    // A shape like (2^62 + 1,) must not wrap the element count (or, below,
    // count x width) into a small number that passes the size check.
    if (__builtin_mul_overflow(count, extent, &count)) {
      throw fail(absl::StrCat("shape (", value_of("shape"), ") overflows the element count"));
    }
    if (extent != 1) ++dims;
  }
  if (dims > 1) {
    throw InputError(absl::StrFormat(
        "%s: the array has shape (%s); expected a 1-D array of lengths (use arr.ravel())", source,
        value_of("shape")));
  }
  if (descr.size() < 3 || (descr[1] != 'i' && descr[1] != 'u') ||
      (descr[0] != '<' && descr[0] != '>' && descr[0] != '|' && descr[0] != '=')) {
    throw InputError(
        absl::StrFormat("%s: dtype %s is not an integer type; save the lengths with "
                        "np.save(path, lengths.astype(np.int64))",
                        source, Quote(descr)));
  }
  size_t width = 0;
  if (!absl::SimpleAtoi(descr.substr(2), &width) ||
      (width != 1 && width != 2 && width != 4 && width != 8)) {
    throw InputError(absl::StrFormat("%s: unsupported dtype %s", source, Quote(descr)));
  }
  const bool is_signed = descr[1] == 'i';
  const bool big_endian = descr[0] == '>';
  if ((bytes.size() - offset) / width < count) {
    throw InputError(absl::StrFormat("%s: the header says %d elements but the file holds %d",
                                     source, count, (bytes.size() - offset) / width));
  }
  lengths.values.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    uint64_t raw = 0;
    for (size_t b = 0; b < width; ++b) {
      const size_t shift = big_endian ? 8 * (width - 1 - b) : 8 * b;
      raw |= static_cast<uint64_t>(byte(offset + i * width + b)) << shift;
    }
    bool negative = false;
    if (is_signed && width < 8 && (raw >> (8 * width - 1)) != 0) negative = true;
    if (is_signed && width == 8 && (raw >> 63) != 0) negative = true;
    if (!is_signed && width == 8 && (raw >> 63) != 0) {
      throw InputError(
          absl::StrFormat("%s: element %d = %u does not fit in int64", source, i, raw));
    }
    int64_t value = static_cast<int64_t>(raw);
    if (negative) {
      value = width == 8 ? static_cast<int64_t>(raw)
                         : static_cast<int64_t>(raw) - (int64_t{1} << (8 * width));
    }
    if (value <= 0) {
      throw InputError(absl::StrFormat(
          "%s: element %d = %d is not a length: every length must be positive", source, i, value));
    }
    lengths.values.push_back(value);
  }
  RequireNonEmpty(lengths);
  return lengths;
}

Lengths ReadLengths(const std::string& path, const std::string& column) {
  const std::string source = path == "-" ? "<stdin>" : path;
  const bool npy = absl::EndsWith(path, ".npy");
  const bool tsv = absl::EndsWith(path, ".tsv");
  const bool csv = !column.empty() || tsv || absl::EndsWith(path, ".csv");
  std::string bytes = ReadAll(path, source, npy ? 0 : csv ? kMaxCsvLineBytes : kMaxTextLineBytes);
  if (bytes.compare(0, 6, kNpyMagic) == 0) return ParseNpy(source, bytes);
  if (npy) return ParseNpy(source, bytes);
  // A UTF-8 byte-order mark (what some Windows editors write first) is not
  // part of the first value.
  if (absl::StartsWith(bytes, "\xEF\xBB\xBF")) bytes.erase(0, 3);
  if (csv) return ParseCsv(source, bytes, column, tsv ? '\t' : ',');
  return ParseText(source, bytes);
}

std::vector<double> ParseExtraCosts(const std::string& source, const std::string& bytes,
                                    size_t count) {
  std::vector<double> out;
  ForEachLine(bytes, [&](int64_t number, absl::string_view line) {
    const absl::string_view trimmed = absl::StripAsciiWhitespace(line);
    if (trimmed.empty() || trimmed[0] == '#') return;  // blank lines and comments
    double value = 0;
    if (!absl::SimpleAtod(trimmed, &value) || !std::isfinite(value) || value < 0) {
      throw InputError(absl::StrFormat(
          "%s:%d: '%s' is not an extra cost: expected a finite, non-negative number", source,
          number, std::string(trimmed.substr(0, 40))));
    }
    out.push_back(value);
  });
  if (out.size() != count) {
    throw InputError(absl::StrFormat(
        "%s: %d extra costs for %d documents: --extra-costs needs one per length, in order", source,
        out.size(), count));
  }
  return out;
}

std::vector<double> ReadExtraCosts(const std::string& path, size_t count) {
  const std::string source = path == "-" ? "<stdin>" : path;
  std::string bytes = ReadAll(path, source, kMaxTextLineBytes);
  if (absl::StartsWith(bytes, "\xEF\xBB\xBF")) bytes.erase(0, 3);
  return ParseExtraCosts(source, bytes, count);
}

}  // namespace flopspack::cli
