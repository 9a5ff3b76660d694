// `schedkit fgd run` and `schedkit fgd policies` end to end on small files in the openb layout.
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "test_files.h"

namespace schedkit::sharing {
namespace {

using schedkit::testing::ReadFile;
using schedkit::testing::RunCli;
using schedkit::testing::WriteTempFile;

std::string PodsFile() {
  return WriteTempFile("cli_pods.csv",
                       "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
                       "a,2000,1024,1,300,\nb,4000,2048,1,1000,\nc,1000,512,0,0,\n"
                       "d,8000,4096,2,1000,T4\ne,2000,1024,1,700,\n");
}
std::string NodesFile() {
  return WriteTempFile("cli_nodes.csv",
                       "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,65536,4,T4\n"
                       "n1,16000,65536,2,P100\nn2,16000,65536,0,\n");
}

TEST(FgdCli, RunWritesCurveAndSummary) {
  const std::string out = ::testing::TempDir() + "/fgd_cli_out";
  const auto r = RunCli("fgd run --pods " + PodsFile() + " --nodes " + NodesFile() +
                        " --policy fgd --policy random --seeds 1-3 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("fgd               3"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("random            3"), std::string::npos) << r.output;
  const std::string summary = ReadFile(out + "/summary.csv");
  EXPECT_NE(summary.find("fgd,100,3,"), std::string::npos) << summary;
  EXPECT_NE(summary.find("random,130,3,"), std::string::npos) << summary;
  EXPECT_FALSE(ReadFile(out + "/curve.csv").empty());
}

TEST(FgdCli, PoliciesListsAllSix) {
  const auto r = RunCli("fgd policies");
  ASSERT_EQ(r.exit_code, 0);
  for (const char* name : {"fgd", "best-fit", "dot-product", "packing", "clustering", "random"}) {
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  }
}

TEST(FgdCli, BadInputIsOneLineAndExitOne) {
  const std::string ok = " --nodes " + NodesFile();
  const std::string bad_pods = WriteTempFile(
      "cli_bad_pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\na,1,1,1,300\nb,1,1,3,300\n");
  const struct {
    std::string args, message;
  } cases[] = {
      {"fgd run --pods " + bad_pods + ok, "cli_bad_pods.csv:3: field 'gpu_milli'"},
      {"fgd run --pods " + PodsFile() + ok + " --policy worst", "unknown policy 'worst'"},
      {"fgd run --pods " + PodsFile() + ok + " --seeds 5-1", "--seeds '5-1'"},
      {"fgd run --pods " + PodsFile() + ok + " --ties last", "--ties 'last'"},
  };
  for (const auto& c : cases) {
    const auto r = RunCli(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << r.output;
    EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
  }
}

// The openb files as the simulator's trace and cluster, with departures. fgd-best-fit puts a
// (300 milli, 2 cores) on the smaller node n1 (score 83 against 65 on n0), b (a whole GPU) on
// n1's other GPU (91 against 70); d must have T4s: n0; e (700) fills a's GPU exactly (96).
// c (CPU-only) is not a job.
TEST(FgdCli, SimulateRunsOpenbFilesWithASharingPlacement) {
  const std::string pods = WriteTempFile(
      "cli_sim_pods.csv",
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n"
      "a,2000,1024,1,300,,LS,Running,100,200,100\nb,4000,2048,1,1000,,LS,Running,100,150,100\n"
      "c,1000,512,0,0,,BE,Running,100,300,100\nd,8000,4096,2,1000,T4,LS,Running,110,210,110\n"
      "e,2000,1024,1,700,,LS,Running,120,320,120\n");
  const std::string out = ::testing::TempDir() + "/fgd_sim_out";
  const auto r = RunCli("simulate --trace " + pods + " --cluster " + NodesFile() +
                        " --policy fifo --placement fgd-best-fit --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string jobs = ReadFile(out + "/jobs.csv");
  EXPECT_NE(jobs.find(",n1:0@300"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find(",n1:1,"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find(",n0:0-1,"), std::string::npos) << jobs;
  EXPECT_NE(jobs.find(",n1:0@700"), std::string::npos) << jobs;
  EXPECT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 5) << jobs;  // Header + 4 GPU pods.
  const auto bad = RunCli("simulate --trace " + pods + " --cluster " + NodesFile() +
                          " --policy fifo --placement fgd --opt placement.ties=last");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("option 'ties' must be 'ranked', 'first' or 'random'"),
            std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace schedkit::sharing
