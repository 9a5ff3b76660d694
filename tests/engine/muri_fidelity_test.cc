// Fidelity against the public Muri simulator (commit 4e69a78) on trace3 with the
// 8x8-GPU spec: avg JCT, makespan and p99 JCT within 0.01 % of the reference table in
// ../shared/docs/reference/muri-tiresias.md.
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
};

// Names the case in test logs (gtest would otherwise dump the struct's bytes).
void PrintTo(const Reference& r, std::ostream* os) { *os << r.policy << (r.autopack ? std::string(" autopack=") + r.autopack : std::string()); }

class MuriFidelity : public ::testing::TestWithParam<Reference> {};

TEST_P(MuriFidelity, MatchesTheReferenceTable) {
  const std::string shared = SCHEDKIT_SHARED_DIR;
  const std::string trace_path = shared + "/data/muri/traces/trace3.csv";
  if (!std::filesystem::exists(trace_path)) GTEST_SKIP() << "no " << trace_path;
  auto trace = LoadTrace(trace_path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  auto cluster = LoadClusterSpec(shared + "/data/muri/specs/sim_n8g8.csv");
  ASSERT_TRUE(cluster.ok()) << cluster.status().message();
  auto overheads = RestartOverheads::Load(shared + "/data/muri/profile_table.csv", 10);
  ASSERT_TRUE(overheads.ok()) << overheads.status().message();
  const Reference ref = GetParam();
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
  EXPECT_NEAR(s.makespan_s, ref.makespan, ref.makespan * 1e-4);
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

}  // namespace
}  // namespace schedkit
