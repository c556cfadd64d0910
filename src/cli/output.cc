#include "output.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "flopspack/flopspack.h"
#include "progress.h"
#include "status.h"

namespace flopspack::cli {

Table::Table(std::vector<std::string> columns) {
  for (std::string& name : columns) {
    const bool left = !name.empty() && name[0] == '<';
    left_.push_back(left);
    names_.push_back(left ? name.substr(1) : name);
  }
}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(names_.size());
  rows_.push_back(std::move(cells));
}

namespace {

// Display width of UTF-8 text: count code points, not bytes.
size_t Width(const std::string& s) {
  size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string Table::Text() const {
  std::vector<size_t> widths(names_.size());
  for (size_t c = 0; c < names_.size(); ++c) {
    widths[c] = Width(names_[c]);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], Width(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(widths[c] - Width(cells[c]), ' ');
      if (c > 0) out += "  ";
      out += left_[c] ? cells[c] + (c + 1 < cells.size() ? pad : "") : pad + cells[c];
    }
    return out + "\n";
  };
  std::string out = line(names_);
  std::vector<std::string> rule;
  for (size_t w : widths) rule.push_back(std::string(w, '-'));
  out += line(rule);
  for (const auto& row : rows_) out += line(row);
  return out;
}

std::string Table::Csv() const {
  std::string out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c > 0) out += ',';
      out += CsvField(cells[c]);
    }
    out += "\r\n";
  };
  line(names_);
  for (const auto& row : rows_) line(row);
  return out;
}

std::string Cell(int64_t value) {
  const uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : value;
  const std::string digits = std::to_string(magnitude);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string Cell(double value, int digits) {
  if (!std::isfinite(value)) return std::isnan(value) ? "nan" : (value > 0 ? "inf" : "-inf");
  return absl::StrFormat("%.*g", digits, value);
}

std::string Percent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return "-";
  return absl::StrFormat("%.*f%%", decimals, 100 * fraction);
}

std::string Si(double value) {
  static const char* const kSuffix[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y"};
  if (!std::isfinite(value)) return Cell(value);
  int k = 0;
  double v = value;
  while (std::fabs(v) >= 1000 && k < 8) {
    v /= 1000;
    ++k;
  }
  return k == 0 ? Cell(value, 4) : absl::StrFormat("%.3g%s", v, kSuffix[k]);
}

Format OutputFormat(const OutputOptions& options, const std::string& command, bool csv_allowed) {
  const bool json = options.json, csv = options.csv;
  if (json && csv) throw UsageError("--json and --csv are exclusive: choose one");
  if (csv && !csv_allowed) {
    throw UsageError(absl::StrFormat("--csv: '%s' has no single table; use --json", command));
  }
  return json ? Format::kJson : csv ? Format::kCsv : Format::kTable;
}

Json Envelope(const std::string& command) {
  Json out = Json::Object();
  out.Set("schema", kJsonSchema);
  out.Set("command", command);
  out.Set("flopspack_version", flopspack_version_string());
  return out;
}

void Emit(const OutputOptions& options, const std::string& text) {
  const std::string& path = options.output;
  if (path.empty() || path == "-") {
    ClearProgressLine();  // stdout and stderr may share the terminal
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw InputError(
        absl::StrFormat("--output=%s: cannot open for writing: %s", path, std::strerror(errno)));
  }
  out << text;
  out.close();
  if (!out) {
    throw InputError(absl::StrFormat("--output=%s: write failed: %s", path, std::strerror(errno)));
  }
}

}  // namespace flopspack::cli
