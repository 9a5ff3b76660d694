// `schedkit sweep --slurm` end to end on a real two-node Slurm cluster that the test
// starts itself (tests/slurm/test_cluster.sh; the packages come from scripts/setup.sh).
#include <gtest/gtest.h>

#include "test_files.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace {
using schedkit::testing::ReadFile;
namespace fs = std::filesystem;

const std::string kSource = SCHEDKIT_SOURCE_DIR;


// Starts the cluster in its own folder and stops it however the test ends.
class SlurmCluster {
 public:
  explicit SlurmCluster(std::string dir) : dir_(std::move(dir)) {
    fs::remove_all(dir_);
    const std::string cmd = kSource + "/tests/slurm/test_cluster.sh start " + dir_ + " > " + dir_ +
                            ".start.log 2>&1";
    started_ = std::system(cmd.c_str()) == 0;
  }
  ~SlurmCluster() {
    std::system((kSource + "/tests/slurm/test_cluster.sh stop " + dir_).c_str());
  }
  bool started() const { return started_; }
  std::string conf() const { return dir_ + "/slurm.conf"; }
  std::string start_log() const { return ReadFile(dir_ + ".start.log"); }

 private:
  std::string dir_;
  bool started_ = false;
};

TEST(SlurmSweep, RunsTheGridAsAJobArrayAcrossBothNodesAndMerges) {
  ASSERT_EQ(std::system("command -v slurmctld > /dev/null"), 0)
      << "slurmctld is not installed: run scripts/setup.sh";
  SlurmCluster cluster(::testing::TempDir() + "/slurm_sweep_cluster");
  ASSERT_TRUE(cluster.started()) << cluster.start_log();

  const std::string dir = ::testing::TempDir() + "/slurm_sweep";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/grid.toml") << "name = \"slurm\"\nseeds = [1, 2, 3]\n[workload]\n"
                                       "jobs = 50\njobs_per_hour = [2, 4]\n[[policy]]\n"
                                       "name = \"fifo\"\n[[policy]]\nname = \"srtf\"\n";
  const std::string cmd = "SLURM_CONF=" + cluster.conf() + " " + SCHEDKIT_CLI + " sweep " + dir +
                          "/grid.toml --out " + dir + "/out --slurm --slurm-tasks 4 --threads 2 > " +
                          dir + "/log 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << ReadFile(dir + "/log");
  EXPECT_NE(ReadFile(dir + "/log").find("12 of 12 runs finished"), std::string::npos)
      << ReadFile(dir + "/log");

  // Every grid point exactly once in the merged table.
  std::stringstream results(ReadFile(dir + "/out/results.csv"));
  std::set<std::string> rows;
  size_t lines = 0;
  for (std::string line; std::getline(results, line); ++lines) rows.insert(line);
  EXPECT_EQ(lines, 13u);
  EXPECT_EQ(rows.size(), 13u);

  // Four array tasks, two CPUs each, two 2-CPU nodes: both nodes ran tasks.
  std::set<std::string> nodes;
  for (int task = 0; task < 4; ++task) {
    const std::string log = ReadFile(dir + "/out/slurm/task-" + std::to_string(task) + ".out");
    ASSERT_EQ(log.rfind("node=", 0), 0u) << "task " << task << ": " << log;
    nodes.insert(log.substr(5, log.find('\n') - 5));
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2"}));
}

}  // namespace
