// The length readers: every format, and for bad input an exit code of 1 with
// a message that names the source, the line (or element) and the value.
#include "input.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "status.h"

namespace flopspack::cli {
namespace {

using Values = std::vector<int64_t>;

// The message of the CliError fn throws (and checks it is exit code 1).
template <typename Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const CliError& e) {
    EXPECT_EQ(e.code(), kExitBadInput) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

std::string Npy(const std::string& descr, const std::string& shape, const std::string& data,
                int version = 1) {
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape + "), }";
  const size_t prefix = version == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  const size_t n = header.size();
  out += static_cast<char>(n & 0xff);
  out += static_cast<char>((n >> 8) & 0xff);
  if (version != 1) {
    out += static_cast<char>((n >> 16) & 0xff);
    out += static_cast<char>((n >> 24) & 0xff);
  }
  return out + header + data;
}

std::string Le64(const std::vector<int64_t>& values) {
  std::string out;
  for (int64_t v : values) {
    for (int b = 0; b < 8; ++b)
      out += static_cast<char>((static_cast<uint64_t>(v) >> (8 * b)) & 0xff);
  }
  return out;
}

TEST(TextTest, ReadsLinesSkippingBlanksAndComments) {
  const Lengths l = ParseText("a.txt", "# lengths\n5\n\n  12 \r\n7\n+3");
  EXPECT_EQ(l.values, (Values{5, 12, 7, 3}));
  EXPECT_EQ(l.format, InputFormat::kText);
  EXPECT_EQ(l.Where(1), "a.txt:4");
  EXPECT_EQ(l.Where(3), "a.txt:6");
}

TEST(TextTest, BadLineNamesFileLineAndValue) {
  EXPECT_EQ(ErrorOf([] { ParseText("a.txt", "5\n\n12x\n"); }),
            "a.txt:3: '12x' is not a length: expected a positive integer");
  EXPECT_EQ(ErrorOf([] { ParseText("a.txt", "5\n0\n"); }),
            "a.txt:2: '0' is not a length: every length must be positive");
  EXPECT_EQ(ErrorOf([] { ParseText("a.txt", "-4\n"); }),
            "a.txt:1: '-4' is not a length: every length must be positive");
  EXPECT_EQ(ErrorOf([] { ParseText("a.txt", "1.5\n"); }),
            "a.txt:1: '1.5' is not a length: expected a positive integer");
  EXPECT_EQ(
      ErrorOf([] { ParseText("a.txt", "99999999999999999999\n"); }),
      "a.txt:1: '99999999999999999999' is too large for a length: at most 9223372036854775807 (a "
      "64-bit integer)");
  // Binary junk is escaped and cut, not dumped raw.
  const std::string message = ErrorOf([] { ParseText("b", std::string("\x01\xff", 2)); });
  EXPECT_EQ(message, "b:1: '\\x01\\xff' is not a length: expected a positive integer");
}

TEST(TextTest, EmptyInputIsAnError) {
  EXPECT_EQ(ErrorOf([] { ParseText("e.txt", ""); }), "e.txt: no lengths found (empty input)");
  EXPECT_EQ(ErrorOf([] { ParseText("e.txt", "# only a comment\n\n"); }),
            "e.txt: no lengths found (empty input)");
}

TEST(CsvTest, SelectsColumnByNameIndexOrGuess) {
  const std::string csv = "id,text,num_tokens\n1,\"a, \"\"quoted\"\" b\",17\n2,x,4\n";
  EXPECT_EQ(ParseCsv("d.csv", csv, "num_tokens", ',').values, (Values{17, 4}));
  EXPECT_EQ(ParseCsv("d.csv", csv, "3", ',').values, (Values{17, 4}));
  EXPECT_EQ(ParseCsv("d.csv", csv, "1", ',').values, (Values{1, 2}));
  const Lengths guessed = ParseCsv("d.csv", csv, "", ',');
  EXPECT_EQ(guessed.values, (Values{17, 4}));
  EXPECT_EQ(guessed.column, "num_tokens");
  EXPECT_EQ(guessed.Where(1), "d.csv:3");
  EXPECT_EQ(ParseCsv("d.csv", "length\n3\n4\n", "", ',').values, (Values{3, 4}));
  EXPECT_EQ(ParseCsv("d.tsv", "a\tb\n3\t9\n", "b", '\t').values, (Values{9}));
}

TEST(CsvTest, Errors) {
  EXPECT_EQ(ErrorOf([] { ParseCsv("d.csv", "a,b\n1,2\n", "", ','); }),
            "d.csv:1: several columns and none named length: choose one with --column; the "
            "header's columns are: a, b");
  EXPECT_EQ(ErrorOf([] { ParseCsv("d.csv", "a,b\n1,2\n", "c", ','); }),
            "d.csv:1: no column named 'c'; the header's columns are: a, b");
  EXPECT_EQ(ErrorOf([] { ParseCsv("d.csv", "a,b\n1,2\n", "3", ','); }),
            "d.csv:1: --column=3 but the header has 2 columns");
  EXPECT_EQ(ErrorOf([] { ParseCsv("d.csv", "a,b\n1,2\n3\n", "b", ','); }),
            "d.csv:3: the record has 1 fields, column 'b' is field 2");
  EXPECT_EQ(ErrorOf([] { ParseCsv("d.csv", "a,b\n1,2\n3,x\n", "b", ','); }),
            "d.csv:3: 'x' is not a length: expected a positive integer");
  EXPECT_EQ(ErrorOf([] { ParseCsv("d.csv", "a,b\n", "b", ','); }),
            "d.csv: no lengths found (empty input)");
}

TEST(NpyTest, ReadsIntegerDtypesAndVersions) {
  EXPECT_EQ(ParseNpy("a.npy", Npy("<i8", "3,", Le64({5, 1, 1LL << 40}))).values,
            (Values{5, 1, 1LL << 40}));
  EXPECT_EQ(ParseNpy("a.npy", Npy("<i8", "2,", Le64({5, 6}), 2)).values, (Values{5, 6}));
  EXPECT_EQ(ParseNpy("a.npy", Npy("<i8", "2,", Le64({5, 6}))).Where(1), "a.npy element 1");
  EXPECT_EQ(ParseNpy("a.npy", Npy("|u1", "2,", "\x07\xff")).values, (Values{7, 255}));
  EXPECT_EQ(ParseNpy("a.npy", Npy("<i2", "1,", std::string("\x00\x01", 2))).values, (Values{256}));
  EXPECT_EQ(ParseNpy("a.npy", Npy(">i4", "1,", std::string("\x00\x00\x01\x02", 4))).values,
            (Values{258}));
  EXPECT_EQ(ParseNpy("a.npy", Npy("<u4", "2, 1", std::string("\x01\0\0\0\x02\0\0\0", 8))).values,
            (Values{1, 2}));  // a (n, 1) column is accepted
}

TEST(NpyTest, Errors) {
  EXPECT_EQ(ErrorOf([] { ParseNpy("a.npy", Npy("<f8", "1,", Le64({0}))); }),
            "a.npy: dtype '<f8' is not an integer type; save the lengths with "
            "np.save(path, lengths.astype(np.int64))");
  EXPECT_EQ(ErrorOf([] {
              ParseNpy("a.npy", Npy("<i8", "2,", Le64({3, -2})));
            }),
            "a.npy: element 1 = -2 is not a length: every length must be positive");
  EXPECT_EQ(ErrorOf([] { ParseNpy("a.npy", Npy("|i1", "1,", "\xfe")); }),
            "a.npy: element 0 = -2 is not a length: every length must be positive");
  EXPECT_EQ(ErrorOf([] {
              ParseNpy("a.npy", Npy("<i8", "3,", Le64({3, 2})));
            }),
            "a.npy: the header says 3 elements but the file holds 2");
  EXPECT_EQ(ErrorOf([] {
              ParseNpy("a.npy", Npy("<i8", "2, 2", Le64({1, 2, 3, 4})));
            }),
            "a.npy: the array has shape (2, 2); expected a 1-D array of lengths (use arr.ravel())");
  EXPECT_EQ(ErrorOf([] { ParseNpy("a.npy", Npy("<i8", "0,", "")); }),
            "a.npy: no lengths found (empty input)");
  EXPECT_EQ(ErrorOf([] { ParseNpy("a.npy", "hello"); }), "a.npy: not a valid .npy file: bad magic");
}

// Issue 21 item 10: shape (2^62 + 1,) made count x 8 wrap to 8, passed the
// size check and died in vector::reserve (exit 3, internal error). Shapes
// whose element count or byte size overflows are bad input (exit 1).
TEST(NpyTest, HugeShapesAreBadInputNotInternalErrors) {
  EXPECT_EQ(ErrorOf([] { ParseNpy("a.npy", Npy("<i8", "4611686018427387905,", Le64({5}))); }),
            "a.npy: the header says 4611686018427387905 elements but the file holds 1");
  EXPECT_EQ(ErrorOf([] { ParseNpy("a.npy", Npy("<i8", "18446744073709551615,", Le64({5}))); }),
            "a.npy: the header says 18446744073709551615 elements but the file holds 1");
  EXPECT_EQ(ErrorOf([] { ParseNpy("a.npy", Npy("<i8", "4294967296, 4294967297", Le64({5}))); }),
            "a.npy: not a valid .npy file: shape (4294967296, 4294967297) overflows the element "
            "count");
}

// Issue 21 item 12: a 2 GB line was read whole (3.9 GB peak) before being
// rejected. A line over the limit is rejected once read, naming the line;
// a .npy array (binary, few newlines) has no line limit.
TEST(ReadLengthsTest, OverlongLinesAreRejectedWhileReading) {
  const std::string dir = ::testing::TempDir();
  const std::string txt = dir + "/long_line.txt";
  {
    std::ofstream out(txt, std::ios::binary);
    out << "5\n7\n" << std::string(kMaxTextLineBytes + 1, '9') << "\n3\n";
  }
  EXPECT_EQ(ErrorOf([&] { ReadLengths(txt, ""); }),
            txt +
                ":3: the line is longer than 1048576 bytes: not a length (is this a text file "
                "of lengths?)");
  // Exactly at the limit: read, then rejected as a value (too large for int64).
  {
    std::ofstream out(txt, std::ios::binary);
    out << "5\n" << std::string(kMaxTextLineBytes, ' ') << "\n";
  }
  EXPECT_EQ(ReadLengths(txt, "").values, (Values{5}));
  // A .npy array without a single '\n' byte: one 3 MiB "line", no limit.
  const std::string npy = dir + "/many_no_extension";
  std::vector<int64_t> many(size_t{3} << 17, 0x0101010101010101);
  std::ofstream(npy, std::ios::binary) << Npy("<i8", std::to_string(many.size()) + ",", Le64(many));
  EXPECT_EQ(ReadLengths(npy, "").values.size(), many.size());
}

TEST(ReadLengthsTest, DispatchesOnContentAndExtension) {
  const std::string dir = ::testing::TempDir();
  const std::string npy = dir + "/lengths_no_extension";
  std::ofstream(npy, std::ios::binary) << Npy("<i8", "2,", Le64({9, 8}));
  EXPECT_EQ(ReadLengths(npy, "").values, (Values{9, 8}));
  const std::string csv = dir + "/l.csv";
  std::ofstream(csv) << "tokens\n4\n";
  EXPECT_EQ(ReadLengths(csv, "").format, InputFormat::kCsv);
  const std::string txt = dir + "/l.txt";
  std::ofstream(txt) << "4\n";
  EXPECT_EQ(ReadLengths(txt, "").format, InputFormat::kText);
  const std::string missing = dir + "/does_not_exist.txt";
  EXPECT_EQ(ErrorOf([&] { ReadLengths(missing, ""); }),
            missing + ": cannot open: No such file or directory");
}

}  // namespace
}  // namespace flopspack::cli
