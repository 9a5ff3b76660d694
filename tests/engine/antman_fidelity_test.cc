// AntMan against Muri's figure data on trace3 with the 8x8-GPU spec, --compat muri:
// 305453.9407 / 8174140.28 / 3904420.793 (simulator/draw_fig9-10.py). Tolerance 1e-8:
// the run matches every printed digit (docs/fidelity.md).
#include <gtest/gtest.h>

#include <filesystem>

#include "schedkit/run.h"
#include "schedkit/trace.h"

namespace schedkit {
namespace {

TEST(AntManFidelity, Trace3MatchesTheFigureData) {
  const std::string shared = SCHEDKIT_SHARED_DIR;
  const std::string trace_path = shared + "/data/muri/traces/trace3.csv";
  if (!std::filesystem::exists(trace_path)) GTEST_SKIP() << "no " << trace_path;
  auto trace = LoadTrace(trace_path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  auto cluster = LoadClusterSpec(shared + "/data/muri/specs/sim_n8g8.csv");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  auto overheads = RestartOverheads::Load(shared + "/data/muri/profile_table.csv", 10);
  ASSERT_TRUE(overheads.ok()) << overheads.status().message();
  PolicyRequest req;
  req.policy = "antman";
  req.compat = CompatMode::kMuri;
  SimulatorOptions options;
  options.overheads = *overheads;
  auto run = RunSimulation(*trace, *cluster, req, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const Summary& s = run->summary;
  EXPECT_EQ(s.jobs, 992);
  EXPECT_NEAR(s.avg_jct_s, 305453.9407, 305453.9407 * 1e-8);
  EXPECT_NEAR(s.makespan_s, 8174140.28, 8174140.28 * 1e-8);
  EXPECT_NEAR(s.p99_jct_s, 3904420.793, 3904420.793 * 1e-8);
}

}  // namespace
}  // namespace schedkit
