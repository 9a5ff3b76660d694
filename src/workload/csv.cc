#include "workload/csv.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <sstream>
#include <utility>

namespace schedkit::workload {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

std::string_view Trim(std::string_view s, char delimiter) {
  // A tab is data-significant in TSV, so only trim it when it is not the delimiter.
  auto trimmable = [delimiter](char c) {
    return c == ' ' || c == '\r' || (c == '\t' && delimiter != '\t');
  };
  while (!s.empty() && trimmable(s.front())) s.remove_prefix(1);
  while (!s.empty() && trimmable(s.back())) s.remove_suffix(1);
  return s;
}

// from_chars rejects a leading '+', so one is skipped here; a sign after it ("+-7") is
// not a number. Returns false if nothing is left to parse.
bool SkipLeadingPlus(const char** begin, const char* end) {
  if (**begin != '+') return true;
  ++*begin;
  return *begin != end && **begin != '-' && **begin != '+';
}

std::string BoundText(int64_t v) { return std::to_string(v); }
std::string BoundText(double v) { return FormatDouble(v); }

}  // namespace

bool ParseInt64(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (!SkipLeadingPlus(&begin, end)) return false;
  auto [ptr, ec] = std::from_chars(begin, end, *out);
  return ec == std::errc() && ptr == end;
}

bool ParseFiniteDouble(std::string_view text, double* out) {
  if (text.empty()) return false;
  const char* begin = text.data();
  const char* end = begin + text.size();
  if (!SkipLeadingPlus(&begin, end)) return false;
  double v = 0;
  auto [ptr, ec] = std::from_chars(begin, end, v, std::chars_format::general);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

std::string FormatDouble(double value) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, ptr);
}

std::string CsvField(std::string_view value, char delimiter) {
  bool needs_quotes = value.find(delimiter) != std::string_view::npos ||
                      value.find('"') != std::string_view::npos ||
                      (!value.empty() && (IsBlank(value.front()) || IsBlank(value.back())));
  if (!needs_quotes) return std::string(value);
  std::string out = "\"";
  for (char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

CsvReader::CsvReader(std::string file, std::unique_ptr<std::istream> in, CsvOptions options)
    : file_(std::move(file)), in_(std::move(in)), options_(options) {}

Result<std::unique_ptr<CsvReader>> CsvReader::Open(const std::string& path, CsvOptions options) {
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) {
    int err = errno;
    std::string msg = path + ": cannot open: " + std::strerror(err);
    if (err == ENOENT) return Status::NotFound(msg);
    return Status::IoError(msg);
  }
  return std::unique_ptr<CsvReader>(new CsvReader(path, std::move(in), options));
}

std::unique_ptr<CsvReader> CsvReader::FromString(std::string name, std::string text,
                                                 CsvOptions options) {
  return std::unique_ptr<CsvReader>(new CsvReader(
      std::move(name), std::make_unique<std::istringstream>(std::move(text)), options));
}

bool CsvReader::ReadRecord() {
  std::string text;
  while (std::getline(*in_, text)) {
    int this_line = next_line_++;
    if (this_line == 1 && text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
    if (!text.empty() && text.back() == '\r') text.pop_back();
    bool blank = true;
    for (char c : text) {
      if (!IsBlank(c)) {
        blank = false;
        break;
      }
    }
    if (blank) continue;
    line_ = this_line;
    line_text_ = std::move(text);
    status_ = Split(line_text_, &fields_);
    return status_.ok();
  }
  if (in_->bad()) status_ = Status::IoError(file_ + ": read error");
  fields_.clear();
  return false;
}

Status CsvReader::Split(const std::string& text, std::vector<std::string>* fields) const {
  fields->clear();
  const char d = options_.delimiter;
  size_t i = 0;
  const size_t n = text.size();
  while (true) {
    // Skip spaces before a possible opening quote.
    size_t start = i;
    while (options_.quotes && start < n && text[start] == ' ') ++start;
    if (options_.quotes && start < n && text[start] == '"') {
      std::string value;
      size_t j = start + 1;
      bool closed = false;
      while (j < n) {
        if (text[j] == '"') {
          if (j + 1 < n && text[j + 1] == '"') {
            value += '"';
            j += 2;
            continue;
          }
          closed = true;
          ++j;
          break;
        }
        value += text[j++];
      }
      if (!closed) {
        return Status::InvalidArgument(file_ + ":" + std::to_string(line_) +
                                       ": unterminated quoted field " +
                                       std::to_string(fields->size() + 1));
      }
      while (j < n && text[j] == ' ') ++j;
      if (j < n && text[j] != d) {
        return Status::InvalidArgument(file_ + ":" + std::to_string(line_) +
                                       ": text after the closing quote of field " +
                                       std::to_string(fields->size() + 1));
      }
      fields->push_back(std::move(value));
      if (j >= n) break;
      i = j + 1;
      continue;
    }
    size_t end = text.find(d, i);
    std::string_view raw(text.data() + i, (end == std::string::npos ? n : end) - i);
    fields->emplace_back(Trim(raw, d));
    if (end == std::string::npos) break;
    i = end + 1;
  }
  return Status::Ok();
}

Status CsvReader::ReadHeader() {
  if (!ReadRecord()) {
    if (!status_.ok()) return status_;
    return Status::InvalidArgument(file_ + ": file is empty (expected a header line)");
  }
  columns_ = fields_;
  header_line_ = line_;
  check_field_count_ = true;
  return Status::Ok();
}

void CsvReader::SetColumnNames(std::vector<std::string> names) {
  columns_ = std::move(names);
  header_line_ = 0;
  check_field_count_ = true;
}

int CsvReader::ColumnIndex(std::string_view name) const {
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (columns_[i] == name) return static_cast<int>(i);
  }
  return -1;
}

Status CsvReader::RequireColumn(std::string_view name, int* index) const {
  *index = ColumnIndex(name);
  if (*index >= 0) return Status::Ok();
  return Status::InvalidArgument(file_ + ":" + std::to_string(header_line_) + ": missing column '" +
                                 std::string(name) + "'");
}

bool CsvReader::Next() {
  if (!status_.ok()) return false;
  if (!ReadRecord()) return false;
  if (check_field_count_ && fields_.size() != columns_.size()) {
    status_ =
        Error(std::to_string(fields_.size()) + " fields, expected " +
              std::to_string(columns_.size()) + (header_line_ > 0 ? " (as in the header)" : ""));
    return false;
  }
  return true;
}

std::string CsvReader::ColumnName(int col) const {
  if (col >= 0 && static_cast<size_t>(col) < columns_.size() && !columns_[col].empty()) {
    return columns_[col];
  }
  return "column " + std::to_string(col + 1);
}

Status CsvReader::Error(std::string_view message) const {
  return Status::InvalidArgument(file_ + ":" + std::to_string(line_) + ": " + std::string(message));
}

Status CsvReader::FieldError(int col, std::string_view what) const {
  std::string value = (col >= 0 && static_cast<size_t>(col) < fields_.size()) ? fields_[col] : "";
  return Error("field '" + ColumnName(col) + "': " + Quoted(value) + " " + std::string(what));
}

Status CsvReader::ReadInt(int col, int64_t* out, int64_t min, int64_t max) const {
  int64_t v = 0;
  if (!ParseInt64(field(col), &v)) return FieldError(col, "is not an integer");
  if (v < min) return FieldError(col, "must be >= " + BoundText(min));
  if (v > max) return FieldError(col, "must be <= " + BoundText(max));
  *out = v;
  return Status::Ok();
}

Status CsvReader::ReadInt(int col, int* out, int64_t min, int64_t max) const {
  int64_t v = 0;
  SCHEDKIT_RETURN_IF_ERROR(ReadInt(col, &v, std::max<int64_t>(min, std::numeric_limits<int>::min()),
                                   std::min<int64_t>(max, std::numeric_limits<int>::max())));
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status CsvReader::ReadDouble(int col, double* out, double min, double max) const {
  double v = 0;
  if (!ParseFiniteDouble(field(col), &v)) {
    // Tell "inf"/"nan" (numbers, but not usable ones) apart from plain garbage.
    double any = 0;
    std::string_view text = field(col);
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), any);
    bool is_number = !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
    return FieldError(col, is_number ? "is not a finite number" : "is not a number");
  }
  if (v < min) return FieldError(col, "must be >= " + BoundText(min));
  if (v > max) return FieldError(col, "must be <= " + BoundText(max));
  *out = v;
  return Status::Ok();
}

Status CsvReader::ReadString(int col, std::string* out) const {
  *out = field(col);
  return Status::Ok();
}

Status CsvReader::ReadOptionalInt(int col, int64_t* out, int64_t min, int64_t max) const {
  if (col < 0 || field(col).empty()) return Status::Ok();
  return ReadInt(col, out, min, max);
}

Status CsvReader::ReadOptionalInt(int col, int* out, int64_t min, int64_t max) const {
  if (col < 0 || field(col).empty()) return Status::Ok();
  return ReadInt(col, out, min, max);
}

Status CsvReader::ReadOptionalDouble(int col, double* out, double min, double max) const {
  if (col < 0 || field(col).empty()) return Status::Ok();
  return ReadDouble(col, out, min, max);
}

Status CsvReader::ReadOptionalString(int col, std::string* out) const {
  if (col < 0 || field(col).empty()) return Status::Ok();
  return ReadString(col, out);
}

}  // namespace schedkit::workload
