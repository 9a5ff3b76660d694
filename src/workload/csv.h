// A small line-based CSV/TSV reader shared by every workload loader (traces, cluster
// specs, distribution files). It tracks 1-based line numbers so that every error names
// the file, the line and the field:
//   "t.csv:7: field 'num_gpu': 'x' is not an integer"
#ifndef SCHEDKIT_WORKLOAD_CSV_H_
#define SCHEDKIT_WORKLOAD_CSV_H_

#include <cstdint>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "schedkit/status.h"

namespace schedkit::workload {

struct CsvOptions {
  char delimiter = ',';
  // RFC 4180 quoting ("a,b" and "" for a quote) within one line. Off for TSV, where
  // Gavel's command column may hold quote characters.
  bool quotes = true;
};

// Reads records one line at a time. Blank lines (only spaces, tabs or a CR) are
// skipped but still counted; a trailing CR (Windows line ends) and a UTF-8 byte-order
// mark are dropped; spaces around unquoted fields are trimmed.
//
// Usage:
//   auto r = CsvReader::Open(path);           // or FromString(name, text)
//   SCHEDKIT_RETURN_IF_ERROR(r->ReadHeader());
//   int gpus_col; SCHEDKIT_RETURN_IF_ERROR(r->RequireColumn("num_gpu", &gpus_col));
//   while (r->Next()) { int gpus; SCHEDKIT_RETURN_IF_ERROR(r->ReadInt(gpus_col, &gpus, 1)); }
//   SCHEDKIT_RETURN_IF_ERROR(r->status());
class CsvReader {
 public:
  static constexpr int64_t kMinInt = std::numeric_limits<int64_t>::min();
  static constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  // Opens `path`; NotFound or IoError naming the file when it cannot be read.
  static Result<std::unique_ptr<CsvReader>> Open(const std::string& path, CsvOptions options = {});
  // Reads from memory; `name` stands in for the file name in messages.
  static std::unique_ptr<CsvReader> FromString(std::string name, std::string text,
                                               CsvOptions options = {});

  const std::string& file() const { return file_; }

  // Reads the next non-blank line as the column names. Fails on an empty file.
  Status ReadHeader();
  // For files without a header: names the columns for messages and makes Next()
  // require exactly names.size() fields per record.
  void SetColumnNames(std::vector<std::string> names);
  const std::vector<std::string>& columns() const { return columns_; }
  // 1-based line of the header; 0 when the columns were set by SetColumnNames.
  int header_line() const { return header_line_; }

  // Index of the column called `name`, or -1.
  int ColumnIndex(std::string_view name) const;
  bool HasColumn(std::string_view name) const { return ColumnIndex(name) >= 0; }
  // Sets *index to the column called `name`; fails "FILE:LINE: missing column 'NAME'"
  // naming the header line.
  Status RequireColumn(std::string_view name, int* index) const;

  // Advances to the next non-blank record. Returns false at the end of the file or on
  // an error; status() tells which. When column names are known, a record with a
  // different number of fields is an error.
  bool Next();
  const Status& status() const { return status_; }

  // The current record.
  int line() const { return line_; }
  size_t num_fields() const { return fields_.size(); }
  const std::string& field(int col) const { return fields_[col]; }
  // The raw text of the current line (CR and BOM removed).
  const std::string& line_text() const { return line_text_; }
  // Name of column `col` for messages ("column 3" when unnamed).
  std::string ColumnName(int col) const;

  // "FILE:LINE: <message>" for the current line.
  Status Error(std::string_view message) const;
  // "FILE:LINE: field 'NAME': 'VALUE' <what>" for column `col` of the current record.
  Status FieldError(int col, std::string_view what) const;

  // Typed readers for column `col` of the current record. Each fails with FieldError
  // ("is not an integer", "is not a number", "must be >= 1", ...). Integers are
  // decimal, doubles are anything std::from_chars accepts that is finite.
  Status ReadInt(int col, int64_t* out, int64_t min = kMinInt, int64_t max = kMaxInt) const;
  Status ReadInt(int col, int* out, int64_t min = std::numeric_limits<int>::min(),
                 int64_t max = std::numeric_limits<int>::max()) const;
  Status ReadDouble(int col, double* out, double min = -kInf, double max = kInf) const;
  Status ReadString(int col, std::string* out) const;

  // Optional variants: when `col` < 0 (column absent) or the field is empty, *out is
  // left unchanged.
  Status ReadOptionalInt(int col, int64_t* out, int64_t min = kMinInt, int64_t max = kMaxInt) const;
  Status ReadOptionalInt(int col, int* out, int64_t min = std::numeric_limits<int>::min(),
                         int64_t max = std::numeric_limits<int>::max()) const;
  Status ReadOptionalDouble(int col, double* out, double min = -kInf, double max = kInf) const;
  Status ReadOptionalString(int col, std::string* out) const;

 private:
  CsvReader(std::string file, std::unique_ptr<std::istream> in, CsvOptions options);
  // Reads the next non-blank line into line_text_/fields_. False at EOF or on error.
  bool ReadRecord();
  Status Split(const std::string& text, std::vector<std::string>* fields) const;

  std::string file_;
  std::unique_ptr<std::istream> in_;
  CsvOptions options_;
  std::vector<std::string> columns_;
  int header_line_ = 0;
  bool check_field_count_ = false;
  int next_line_ = 1;  // Line number of the next line to read.
  int line_ = 0;
  std::string line_text_;
  std::vector<std::string> fields_;
  Status status_;
};

// Strict number parsing used by CsvReader (exposed for other small parsers).
// Returns true iff all of `text` is a decimal integer / a finite double.
bool ParseInt64(std::string_view text, int64_t* out);
bool ParseFiniteDouble(std::string_view text, double* out);

// Shortest text that parses back to exactly `value` (std::to_chars); "0" for zero.
std::string FormatDouble(double value);

// `value` as one CSV field: quoted (with doubled quotes) when it holds the delimiter,
// a quote, or leading/trailing spaces, so that CsvReader reads back the same string.
// REQUIRES: `value` holds no line break.
std::string CsvField(std::string_view value, char delimiter = ',');

}  // namespace schedkit::workload

#endif  // SCHEDKIT_WORKLOAD_CSV_H_
