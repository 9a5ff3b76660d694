// Status and Result: how every schedkit boundary reports failure.
//
// A Status is either OK or carries a code and a one-line message. Messages for
// bad input name the file, line and field ("trace.csv:12: field 'num_gpu': ...").
// Exceptions never cross the public API.
#ifndef SCHEDKIT_STATUS_H_
#define SCHEDKIT_STATUS_H_

#include <cassert>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace schedkit {

class Status {
 public:
  enum class Code { kOk, kInvalidArgument, kNotFound, kIoError, kAlreadyExists, kInternal };

  Status() = default;  // OK.
  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string msg) { return {Code::kInvalidArgument, std::move(msg)}; }
  static Status NotFound(std::string msg) { return {Code::kNotFound, std::move(msg)}; }
  static Status IoError(std::string msg) { return {Code::kIoError, std::move(msg)}; }
  static Status AlreadyExists(std::string msg) { return {Code::kAlreadyExists, std::move(msg)}; }
  static Status Internal(std::string msg) { return {Code::kInternal, std::move(msg)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // "ok" or the message; suitable for a one-line error report.
  std::string ToString() const { return ok() ? "ok" : message_; }

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// Text from the input, quoted for a message: 'text'. A long text is cut to its first
// kQuotedChars bytes and says how long it was ('aaaa...' (1000000 bytes)), so that a huge
// field cannot flood a one-line message; control characters are shown as \xNN.
inline constexpr size_t kQuotedChars = 60;
inline std::string Quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text.substr(0, kQuotedChars)) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", u);
      out += hex;
    } else {
      out += c;
    }
  }
  if (text.size() <= kQuotedChars) return out + "'";
  return out + "...' (" + std::to_string(text.size()) + " bytes)";
}

// A value or the Status explaining why there is none.
template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design.
  Result(Status status) : data_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(data_).ok() && "Result built from an OK status");
  }

  bool ok() const { return std::holds_alternative<T>(data_); }
  // REQUIRES: !ok()
  const Status& status() const { return std::get<Status>(data_); }
  // REQUIRES: ok()
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace schedkit

#define SCHEDKIT_RETURN_IF_ERROR(expr)        \
  do {                                        \
    ::schedkit::Status _st = (expr);          \
    if (!_st.ok()) return _st;                \
  } while (0)

#endif  // SCHEDKIT_STATUS_H_
