// Shared by the fuzz targets (docs/fuzzing.md): most loaders read a path, so each input
// is written to a file of this process's own before the loader sees it.
#ifndef SCHEDKIT_FUZZ_FUZZ_INPUT_H_
#define SCHEDKIT_FUZZ_FUZZ_INPUT_H_

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace schedkit::fuzz {

// A folder of this process's own under $TMPDIR (or /tmp), removed at exit. A fuzzer runs
// one input at a time, so one file per name is enough.
class InputFiles {
 public:
  static InputFiles& Get() {
    static InputFiles files;
    return files;
  }

  // Writes `data` to <folder>/<name> and returns the path. Aborts if it cannot: a fuzz
  // run that tests nothing must not look like a passing one.
  std::string Write(const std::string& name, std::string_view data) {
    const std::string path = dir_ + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(data.data(), 1, data.size(), f) != data.size() ||
        std::fclose(f) != 0) {
      std::perror(path.c_str());
      std::abort();
    }
    return path;
  }

  const std::string& dir() const { return dir_; }

 private:
  InputFiles() {
    const char* tmp = std::getenv("TMPDIR");
    dir_ = std::string(tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp") + "/schedkit-fuzz-" +
           std::to_string(::getpid());
    std::filesystem::create_directories(dir_);
  }
  ~InputFiles() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string dir_;
};

// Reads an input as a sequence of parts: each Next() takes bytes up to the next
// `separator` (or the end). Lets one input carry several fields (a name, then a file).
class Parts {
 public:
  Parts(const uint8_t* data, size_t size)
      : rest_(reinterpret_cast<const char*>(data), size) {}

  std::string_view Next(char separator = '\n') {
    const size_t end = rest_.find(separator);
    std::string_view part = rest_.substr(0, end);
    rest_ = end == std::string_view::npos ? std::string_view() : rest_.substr(end + 1);
    return part;
  }
  // One byte as a choice among `n` (0 when the input is used up).
  size_t Choice(size_t n) {
    if (rest_.empty() || n == 0) return 0;
    const size_t c = static_cast<unsigned char>(rest_[0]) % n;
    rest_.remove_prefix(1);
    return c;
  }
  std::string_view Rest() const { return rest_; }
  bool empty() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

}  // namespace schedkit::fuzz

#endif  // SCHEDKIT_FUZZ_FUZZ_INPUT_H_
