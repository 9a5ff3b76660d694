// Helpers for the workload tests: temp files, shipped/shared data paths, job equality.
#ifndef SCHEDKIT_TESTS_WORKLOAD_WORKLOAD_TEST_UTIL_H_
#define SCHEDKIT_TESTS_WORKLOAD_WORKLOAD_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "schedkit/job.h"

namespace schedkit::testing {

inline std::string SourcePath(const std::string& rel) {
  return std::string(SCHEDKIT_SOURCE_DIR) + "/" + rel;
}
inline std::string SharedPath(const std::string& rel) {
  return std::string(SCHEDKIT_SHARED_DIR) + "/" + rel;
}

// A file under the test temp dir holding `content`, removed when the object dies. The
// name carries the pid and a counter so that tests running in parallel never collide.
class TempFile {
 public:
  explicit TempFile(const std::string& content, const std::string& name = "t.csv") {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("schedkit_wl_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / name).string();
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

// Every JobSpec field, compared exactly.
inline void ExpectSameJob(const JobSpec& a, const JobSpec& b) {
  SCOPED_TRACE("job " + std::to_string(a.id));
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.submit_s, b.submit_s);
  EXPECT_EQ(a.gpus, b.gpus);
  EXPECT_EQ(a.max_gpus, b.max_gpus);
  EXPECT_EQ(a.cpus, b.cpus);
  EXPECT_EQ(a.mem_gb, b.mem_gb);
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.iteration_time_s, b.iteration_time_s);
  EXPECT_EQ(a.duration_s, b.duration_s);
  EXPECT_EQ(a.profile.model, b.profile.model);
  EXPECT_EQ(a.profile.batch_size, b.profile.batch_size);
  EXPECT_EQ(a.profile.stage_times_s, b.profile.stage_times_s);
  EXPECT_TRUE(a.profile.type_speeds == b.profile.type_speeds);
  EXPECT_EQ(a.user, b.user);
  EXPECT_EQ(a.vc, b.vc);
  EXPECT_EQ(a.priority, b.priority);
}

}  // namespace schedkit::testing

#endif  // SCHEDKIT_TESTS_WORKLOAD_WORKLOAD_TEST_UTIL_H_
