// File helpers shared by the tests.
#ifndef SCHEDKIT_TESTS_TEST_FILES_H_
#define SCHEDKIT_TESTS_TEST_FILES_H_

#include <gtest/gtest.h>

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

// A path in the temporary folder that belongs to the running test alone: ctest runs each
// test in its own process, in parallel, so a fixed name shared by the tests of a file
// lets one test overwrite another's file between its writing and its reading.
inline std::string TestTempPath(const std::string& name) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string prefix = test == nullptr
                           ? std::string("no_test")
                           : std::string(test->test_suite_name()) + "." + test->name();
  for (char& c : prefix) {
    if (c == '/') c = '_';  // Parameterised tests' names.
  }
  return ::testing::TempDir() + "/" + prefix + "_" + name;
}

// Writes `text` to `name` in the running test's part of the temporary folder (TestTempPath:
// two Gavel tests writing gavel_pairs.json at once made one read the other's half-written
// file); returns the path.
inline std::string WriteTempFile(const std::string& name, const std::string& text) {
  const std::string path = TestTempPath(name);
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
