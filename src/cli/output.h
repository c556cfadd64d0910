// How a subcommand's result leaves the program: a table (aligned text by
// default, CSV with --csv) or a JSON document (--json), to standard output
// or to --output FILE.
//
// Every JSON document is an envelope (docs/cli.md, "JSON schema"):
//   {"schema": "flopspack-cli/1", "command": "stats",
//    "flopspack_version": "1.0.0", ...subcommand fields...}
// The schema string changes only when a field is removed or changes meaning;
// new fields may appear in any version.
#ifndef FLOPSPACK_CLI_OUTPUT_H_
#define FLOPSPACK_CLI_OUTPUT_H_

#include <string>
#include <vector>

#include "json.h"
#include "options.h"

namespace flopspack::cli {

inline constexpr char kJsonSchema[] = "flopspack-cli/1";

class Table {
 public:
  // A column whose name starts with '<' is left-aligned (the '<' is not
  // shown); all others are right-aligned, as numbers read best.
  explicit Table(std::vector<std::string> columns);
  void AddRow(std::vector<std::string> cells);
  size_t rows() const { return rows_.size(); }

  std::string Text() const;  // aligned columns, a rule under the header
  std::string Csv() const;   // RFC 4180, header first

 private:
  std::vector<std::string> names_;
  std::vector<bool> left_;
  std::vector<std::vector<std::string>> rows_;
};

// A number for a table cell: integers with thousands separators, others to
// `digits` significant digits.
std::string Cell(int64_t value);
std::string Cell(double value, int digits = 4);
std::string Percent(double fraction, int decimals = 1);
// A large quantity with an SI suffix: 1.23e15 -> "1.23P".
std::string Si(double value);

enum class Format { kTable, kCsv, kJson };

// --json / --csv; both at once is a usage error. csv_allowed false makes
// --csv a usage error naming the command.
Format OutputFormat(const OutputOptions& options, const std::string& command, bool csv_allowed);

// The envelope with schema, command and version filled in.
Json Envelope(const std::string& command);

// Writes text to --output (or standard output). A file that cannot be
// written is an error naming it (exit 1).
void Emit(const OutputOptions& options, const std::string& text);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_OUTPUT_H_
