// `schedkit sweep` cannot run --compat lucid: the config is refused at load time with a
// message that says why and what to use instead.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "schedkit/experiment.h"

namespace schedkit {
namespace {

TEST(LucidSweepTest, CompatLucidIsRefusedWithAClearMessage) {
  const std::string path = ::testing::TempDir() + "/lucid_sweep.toml";
  std::ofstream(path) << "name = \"l\"\ncompat = \"lucid\"\n[workload]\njobs = 10\n"
                         "jobs_per_hour = [5]\n[[policy]]\nname = \"fifo\"\n";
  Result<SweepConfig> config = LoadSweepConfig(path);
  ASSERT_FALSE(config.ok());
  const std::string& m = config.status().message();
  EXPECT_EQ(m.rfind(path + ":2: key 'compat': 'lucid' cannot be swept", 0), 0u) << m;
  EXPECT_NE(m.find("schedkit compare --compat lucid"), std::string::npos) << m;
}

}  // namespace
}  // namespace schedkit
