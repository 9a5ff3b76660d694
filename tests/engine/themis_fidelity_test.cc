// Themis against Muri's figure data on trace3 with the 8x8-GPU spec, under --compat muri.
// The figure data were not produced by the themis_sim_jobs of Muri's public simulator as
// it stands (their makespan is below the one every other policy, ours included, shares;
// docs/fidelity.md): what is asserted is
//  (1) our numbers equal those of an independent Python re-implementation of that code
//      path (the scratch oracle described in docs/fidelity.md) to 1e-8, for both choices
//      among the LP's optimal shares, and
//  (2) the measured gap to the figure data, with the tolerance docs/fidelity.md explains.
#include <gtest/gtest.h>

#include <ostream>

#include <filesystem>

#include "schedkit/run.h"
#include "schedkit/trace.h"

namespace schedkit {
namespace {

struct ThemisCase {
  const char* shares;
  double oracle_avg, oracle_makespan, oracle_p99;  // The Python re-implementation.
  double avg_tol;                                  // Against the figure data, relative.
};

// Names the case in test logs (gtest would otherwise dump the struct's bytes).
void PrintTo(const ThemisCase& r, std::ostream* os) { *os << "shares=" << r.shares; }

// Muri's figure data (simulator/draw_fig9-10.py, trace3).
constexpr double kFigureAvg = 397058.802, kFigureMakespan = 8172104.51, kFigureP99 = 2967333.366;

class ThemisFidelity : public ::testing::TestWithParam<ThemisCase> {};

TEST_P(ThemisFidelity, Trace3) {
  const std::string shared = SCHEDKIT_SHARED_DIR;
  const std::string trace_path = shared + "/data/muri/traces/trace3.csv";
  if (!std::filesystem::exists(trace_path)) GTEST_SKIP() << "no " << trace_path;
  auto trace = LoadTrace(trace_path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  auto cluster = LoadClusterSpec(shared + "/data/muri/specs/sim_n8g8.csv");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  auto overheads = RestartOverheads::Load(shared + "/data/muri/profile_table.csv", 10);
  ASSERT_TRUE(overheads.ok()) << overheads.status().message();
  const ThemisCase c = GetParam();
  PolicyRequest req;
  req.policy = "themis";
  req.compat = CompatMode::kMuri;
  req.options["shares"] = c.shares;
  SimulatorOptions options;
  options.overheads = *overheads;
  auto run = RunSimulation(*trace, *cluster, req, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const Summary& s = run->summary;
  EXPECT_EQ(s.jobs, 992);
  // (1) The re-implementation of Muri's code path.
  EXPECT_NEAR(s.avg_jct_s, c.oracle_avg, c.oracle_avg * 1e-8);
  EXPECT_NEAR(s.makespan_s, c.oracle_makespan, c.oracle_makespan * 1e-8);
  EXPECT_NEAR(s.p99_jct_s, c.oracle_p99, c.oracle_p99 * 1e-8);
  // (2) The figure data: avg JCT within the stated tolerance, makespan within 0.05 %.
  // The p99 differs by 35-45 % and is not asserted (docs/fidelity.md).
  EXPECT_NEAR(s.avg_jct_s, kFigureAvg, kFigureAvg * c.avg_tol);
  EXPECT_NEAR(s.makespan_s, kFigureMakespan, kFigureMakespan * 5e-4);
}

INSTANTIATE_TEST_SUITE_P(
    Trace3, ThemisFidelity,
    ::testing::Values(ThemisCase{"least", 402541.464539, 8174135.280030, 4082626.244733, 0.02},
                      ThemisCase{"centre", 411068.632948, 8174135.280030, 4293304.974750, 0.04}),
    [](const auto& info) { return std::string(info.param.shares); });

}  // namespace
}  // namespace schedkit
