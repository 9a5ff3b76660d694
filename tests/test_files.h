// File helpers shared by the tests.
#ifndef SCHEDKIT_TESTS_TEST_FILES_H_
#define SCHEDKIT_TESTS_TEST_FILES_H_

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace schedkit::testing {

// The whole file; empty if it cannot be read.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes `text` to `name` in the test's temporary folder; returns the path.
inline std::string WriteTempFile(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

}  // namespace schedkit::testing

#endif  // SCHEDKIT_TESTS_TEST_FILES_H_
