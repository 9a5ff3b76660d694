// Fidelity against the public Muri simulator (commit 4e69a78) on trace3 (and Tiresias on
// trace3_pr) with the 8x8-GPU spec: avg JCT, makespan and p99 JCT within 0.01 % of the
// reference table in ../shared/docs/reference/muri-tiresias.md, or tighter where noted.
#include <gtest/gtest.h>

#include <ostream>

#include <filesystem>

#include "schedkit/run.h"
#include "schedkit/trace.h"

namespace schedkit {
namespace {

struct Reference {
  const char* policy;
  double avg_jct, makespan, p99_jct;
  const char* autopack = nullptr;  // Muri only.
  double avg_tol = 1e-4, p99_tol = 1e-4;  // Relative.
  const char* trace = "trace3";
  double makespan_tol = 1e-4;  // Relative.
};

// Names the case in test logs (gtest would otherwise dump the struct's bytes).
void PrintTo(const Reference& r, std::ostream* os) {
  *os << r.trace << " " << r.policy
      << (r.autopack ? std::string(" autopack=") + r.autopack : std::string());
}

class MuriFidelity : public ::testing::TestWithParam<Reference> {};

TEST_P(MuriFidelity, MatchesTheReferenceTable) {
  const std::string shared = SCHEDKIT_SHARED_DIR;
  const Reference ref = GetParam();
  const std::string trace_path = shared + "/data/muri/traces/" + ref.trace + ".csv";
  if (!std::filesystem::exists(trace_path)) GTEST_SKIP() << "no " << trace_path;
  auto trace = LoadTrace(trace_path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  auto cluster = LoadClusterSpec(shared + "/data/muri/specs/sim_n8g8.csv");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  auto overheads = RestartOverheads::Load(shared + "/data/muri/profile_table.csv", 10);
  ASSERT_TRUE(overheads.ok()) << overheads.status().message();
  PolicyRequest req;
  req.policy = ref.policy;
  req.compat = CompatMode::kMuri;
  if (ref.autopack) req.options["autopack"] = ref.autopack;
  SimulatorOptions options;
  options.overheads = *overheads;
  auto run = RunSimulation(*trace, *cluster, req, options);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const Summary& s = run->summary;
  EXPECT_EQ(s.jobs, 992);
  EXPECT_NEAR(s.avg_jct_s, ref.avg_jct, ref.avg_jct * ref.avg_tol);
  EXPECT_NEAR(s.makespan_s, ref.makespan, ref.makespan * ref.makespan_tol);
  EXPECT_NEAR(s.p99_jct_s, ref.p99_jct, ref.p99_jct * ref.p99_tol);
}

INSTANTIATE_TEST_SUITE_P(
    Trace3, MuriFidelity,
    ::testing::Values(Reference{"srtf", 193081.796024, 8174135.280030, 4538890.607380},
                      Reference{"srsf", 185021.880164, 8174135.280030, 4189699.176840},
                      Reference{"tiresias", 347213.248119, 8174226.280030, 4983397.254010}),
    [](const auto& info) { return std::string(info.param.policy); });

// Muri-S / Muri-L match the reference to every printed digit (relative error < 5e-12,
// docs/fidelity.md) now that --compat muri matches with Muri's own blossom
// (mechanisms/muri_matching.h). Tolerance 1e-8: margin over the reference's 6 printed
// decimals, far tighter than the 0.01 % the issue asks for.
INSTANTIATE_TEST_SUITE_P(
    Trace3Muri, MuriFidelity,
    ::testing::Values(
        Reference{"muri-s", 85502.553870, 8174135.280030, 992405.062020, "false", 1e-8, 1e-8},
        Reference{"muri-s", 83242.464513, 8174135.280030, 947436.614193, "true", 1e-8, 1e-8},
        Reference{"muri-l", 88686.973128, 8174135.280030, 926787.271190, "true", 1e-8, 1e-8},
        Reference{"muri-l", 89025.229503, 8174135.280030, 927167.048284, "false", 1e-8, 1e-8}),
    [](const auto& info) {
      return std::string(info.param.policy[5] == 's' ? "muri_s" : "muri_l") + "_autopack_" +
             info.param.autopack;
    });

// trace3_pr: trace3's jobs, all submitted at t=0 (issue 13). Equal to the reference's
// printed digits (tolerance 1e-13 relative: under 1e-6 s on every figure). Before Muri's
// summation order of executed time was kept (docs/fidelity.md) schedkit gave
// 2221445.263 / 6763230.541 / 6740867.346.
INSTANTIATE_TEST_SUITE_P(Trace3Pr, MuriFidelity,
                         ::testing::Values(Reference{.policy = "tiresias",
                                                     .avg_jct = 2213110.127711,
                                                     .makespan = 6761641.419945,
                                                     .p99_jct = 6739568.998770,
                                                     .avg_tol = 1e-13,
                                                     .p99_tol = 1e-13,
                                                     .trace = "trace3_pr",
                                                     .makespan_tol = 1e-13}),
                         [](const auto& info) { return std::string(info.param.policy); });

}  // namespace
}  // namespace schedkit
