// --compat lucid against the public Lucid simulator's numbers on the shared synthetic
// Venus trace (docs/reference/lucid-helios.md; gaps explained in docs/fidelity.md).
#include <gtest/gtest.h>

#include <ostream>

#include <cmath>
#include <string>

#include "schedkit/lucid.h"
#include "schedkit/trace.h"

namespace schedkit::lucid {
namespace {

std::string Shared(const std::string& rel) { return std::string(SCHEDKIT_SHARED_DIR) + "/" + rel; }

struct Reference {
  const char* policy;
  double avg_jct, avg_queue, p999_queue;  // Seconds, as the reference table prints them.
};

// Names the case in test logs (gtest would otherwise dump the struct's bytes).
void PrintTo(const Reference& r, std::ostream* os) { *os << r.policy; }

class LucidFidelity : public ::testing::TestWithParam<Reference> {};

TEST_P(LucidFidelity, MatchesTheReferenceTableWithinHalfAPercent) {
  const Reference ref = GetParam();
  Result<CompatPolicy> policy = ParseCompatPolicy(ref.policy);
  ASSERT_TRUE(policy.ok());
  Result<Config> config = ConfigFromOptions(*policy, {{"lucid_dir", Shared("data/lucid")}});
  ASSERT_TRUE(config.ok()) << config.status().message();
  Result<Trace> trace =
      LoadExperimentTrace(Shared("data/lucid/venus_synth_seed1.csv"), {}, config->vcs);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  ASSERT_EQ(trace->jobs.size(), 23859u);
  config->threads = 2;
  Result<RunResult> run = RunCompat(*trace, *config);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->all.jobs, 23859);
  EXPECT_NEAR(run->all.avg_jct_s, ref.avg_jct, 0.005 * ref.avg_jct);
  EXPECT_NEAR(run->all.avg_queue_s, ref.avg_queue, 0.005 * ref.avg_queue);
  EXPECT_NEAR(run->all.p999_queue_s, ref.p999_queue, 0.005 * ref.p999_queue);
  // The cluster-wide numbers are the job-weighted mean of the per-VC ones.
  double jct = 0;
  int64_t jobs = 0;
  for (const auto& [name, s] : run->per_vc) {
    jct += s.avg_jct_s * s.jobs;
    jobs += s.jobs;
  }
  EXPECT_EQ(jobs, run->all.jobs);
  EXPECT_NEAR(jct / jobs, run->all.avg_jct_s, 1e-6 * run->all.avg_jct_s);
}

INSTANTIATE_TEST_SUITE_P(VenusSynthSeed1, LucidFidelity,
                         ::testing::Values(Reference{"fifo", 21011, 13836, 1332343},
                                           Reference{"sjf", 13000, 5825, 687621},
                                           Reference{"qssf", 9714, 2539, 387916},
                                           Reference{"tiresias", 7747, 568, 78334},
                                           Reference{"lucid", 8921, 1705, 297794}),
                         [](const auto& info) { return std::string(info.param.policy); });

}  // namespace
}  // namespace schedkit::lucid
