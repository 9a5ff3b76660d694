// Themis against Muri's figure data on trace3 with the 8x8-GPU spec, under --compat muri.
// The figure data were not produced by the themis_sim_jobs of Muri's public simulator as
// it stands (their makespan is below what Muri's 1.015 runtime factor allows;
// docs/fidelity.md). What is asserted, per case:
//  (1) our numbers equal those of an independent Python re-implementation of the same
//      semantics (the scratch oracle described in docs/fidelity.md) to 1e-8, and
//  (2) the gap to the figure data, with the tolerances docs/fidelity.md explains: for
//      Muri's code as it stands (both choices among the LP's optimal shares) avg JCT and
//      makespan only; for the reconstruction of the figure's run (no 1.015 factor,
//      isolated time in seconds) avg JCT and p99 within 2 %, makespan within 0.01 %.
#include <gtest/gtest.h>

#include <ostream>

#include <filesystem>

#include "schedkit/run.h"
#include "schedkit/trace.h"

namespace schedkit {
namespace {

struct ThemisCase {
  const char* name;
  const char* shares;
  const char* isolated_time;
  double runtime_factor;                           // 0: the compat default (1.015).
  double oracle_avg, oracle_makespan, oracle_p99;  // The Python re-implementation.
  // Against the figure data, relative; a p99 tolerance of 0 means not asserted.
  double avg_tol, makespan_tol, p99_tol;
};

// Names the case in test logs (gtest would otherwise dump the struct's bytes).
void PrintTo(const ThemisCase& r, std::ostream* os) { *os << r.name; }

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
  req.options["isolated_time"] = c.isolated_time;
  SimulatorOptions options;
  options.overheads = *overheads;
  if (c.runtime_factor > 0) options.runtime_factor = c.runtime_factor;
  auto run = RunSimulation(*trace, *cluster, req, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const Summary& s = run->summary;
  EXPECT_EQ(s.jobs, 992);
  // (1) The re-implementation of the same semantics.
  EXPECT_NEAR(s.avg_jct_s, c.oracle_avg, c.oracle_avg * 1e-8);
  EXPECT_NEAR(s.makespan_s, c.oracle_makespan, c.oracle_makespan * 1e-8);
  EXPECT_NEAR(s.p99_jct_s, c.oracle_p99, c.oracle_p99 * 1e-8);
  // (2) The figure data.
  EXPECT_NEAR(s.avg_jct_s, kFigureAvg, kFigureAvg * c.avg_tol);
  EXPECT_NEAR(s.makespan_s, kFigureMakespan, kFigureMakespan * c.makespan_tol);
  if (c.p99_tol > 0) EXPECT_NEAR(s.p99_jct_s, kFigureP99, kFigureP99 * c.p99_tol);
}

INSTANTIATE_TEST_SUITE_P(
    Trace3, ThemisFidelity,
    ::testing::Values(
        // Muri's themis_sim_jobs as it stands: p99 is 38-45 % off and not asserted.
        ThemisCase{"MuriCodeLeast", "least", "iterations", 0, 402541.464539, 8174135.280030,
                   4082626.244733, 0.02, 5e-4, 0},
        ThemisCase{"MuriCodeCentre", "centre", "iterations", 0, 411068.632948, 8174135.280030,
                   4293304.974750, 0.04, 5e-4, 0},
        // The figure's run as reconstructed in docs/fidelity.md.
        ThemisCase{"FigureRun", "centre", "seconds", 1.0, 389920.808025, 8172201.802000,
                   2936554.899937, 0.02, 1e-4, 0.02}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace schedkit
