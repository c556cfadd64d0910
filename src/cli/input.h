// Readers for a file of document lengths: plain text (one length per line),
// a CSV/TSV column, a NumPy .npy integer array, or standard input ("-").
//
// Every value must be a positive decimal integer that fits in int64. A bad
// value is reported with the file, the line (or the array element) and the
// value itself, e.g.
//   data.txt:17: 'abc' is not a length: expected a positive integer
// and maps to exit code 1. The whole input is read into memory first; a
// file of ten million lengths takes about 80 MB while being parsed. A line
// longer than kMaxTextLineBytes (text) or kMaxCsvLineBytes (CSV) is
// rejected as soon as it is read, before the rest of the file.
#ifndef FLOPSPACK_CLI_INPUT_H_
#define FLOPSPACK_CLI_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace flopspack::cli {

enum class InputFormat { kText, kCsv, kNpy };

// The longest line a text input (one length per line, or a comment) and a
// CSV record may have.
inline constexpr size_t kMaxTextLineBytes = size_t{1} << 20;
inline constexpr size_t kMaxCsvLineBytes = size_t{64} << 20;

struct Lengths {
  std::string source;  // the path as given, or "<stdin>"
  InputFormat format = InputFormat::kText;
  std::string column;  // the CSV column used (its header name)
  std::vector<int64_t> values;
  // Line of each value (text and CSV; empty for .npy), for messages about a
  // value the library rejects.
  std::vector<int64_t> lines;

  // "data.txt:17" or "data.npy element 16": where values[i] came from.
  std::string Where(size_t i) const;
};

// Reads the lengths from path ("-" = standard input). column selects a CSV
// column by header name or 1-based index; given for a non-.npy input it
// makes the input CSV (tab-separated if the name ends in .tsv). A .npy file
// (or bytes starting with the NumPy magic) is read as an array. Throws a
// CliError (exit 1) for unreadable, malformed or empty input.
Lengths ReadLengths(const std::string& path, const std::string& column);

// --extra-costs FILE (simulate, report): one extra cost per document, in
// the order of LENGTHS: plain text, one finite non-negative decimal number
// per line (blank lines and '#' comments skipped), exactly `count` values.
// Throws a CliError (exit 1) naming the file and line of a bad value, or
// the counts when they differ. ParseExtraCosts parses bytes already read.
std::vector<double> ReadExtraCosts(const std::string& path, size_t count);
std::vector<double> ParseExtraCosts(const std::string& source, const std::string& bytes,
                                    size_t count);

// The parsers behind ReadLengths, on bytes already read; source names the
// input in messages. Exposed for the unit tests.
Lengths ParseText(const std::string& source, const std::string& bytes);
Lengths ParseCsv(const std::string& source, const std::string& bytes, const std::string& column,
                 char delimiter);
Lengths ParseNpy(const std::string& source, const std::string& bytes);

}  // namespace flopspack::cli

#endif  // FLOPSPACK_CLI_INPUT_H_
