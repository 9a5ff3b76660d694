// The Gittins index, its distribution loader and the gittins / tiresias-gittins policies.
// Indices and schedules are worked out by hand in the comments; zero restart overhead.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "policies/gittins_index.h"
#include "schedkit/metrics.h"
#include "schedkit/trace.h"
#include "sim_test_util.h"
#include "workload/duration_distribution.h"
#include "workload/workload_test_util.h"

namespace schedkit::testing {
namespace {

const ClusterSpec kOneGpu = ClusterSpec::Uniform(1, 1, 1, 0, 0);
constexpr double kInf = std::numeric_limits<double>::infinity();

// R(x, d) = P(S - x <= d | S > x) / E[min(S - x, d) | S > x]. With n_x samples above x,
// of which f end within d: R = f / (sum of (S - x) over those f + d x (n_x - f)).
TEST(GittinsIndex, RatioOnAHandMadeDistribution) {
  const GittinsIndex g({1, 2, 3, 10}, 1);
  EXPECT_DOUBLE_EQ(g.Ratio(0, 1), 1.0 / 4);      // {1} ends; used 1 + 1 x 3 = 4.
  EXPECT_DOUBLE_EQ(g.Ratio(1, 1), 1.0 / 3);      // Above 1: {2,3,10}; {2} ends; used 1 + 2 = 3.
  EXPECT_DOUBLE_EQ(g.Ratio(2, 1), 1.0 / 2);      // {3,10}; {3} ends; used 1 + 1 = 2.
  EXPECT_DOUBLE_EQ(g.Ratio(3, 1), 0);            // {10}; nothing ends within (3, 4].
  EXPECT_DOUBLE_EQ(g.Ratio(9, 1), 1);            // {10} ends surely; used 1.
  EXPECT_DOUBLE_EQ(g.Ratio(10, 1), 0);           // No sample above 10.
  EXPECT_DOUBLE_EQ(g.Ratio(0, 3), 1.0 / 3);      // {1,2,3} end; used 1 + 2 + 3 + 3 x 1 = 9.
  EXPECT_DOUBLE_EQ(g.Ratio(0.5, 2.5), 3.0 / 7);  // {1,2,3} end; used .5+1.5+2.5 + 2.5 = 7.
  EXPECT_DOUBLE_EQ(g.Ratio(0, 10), 1.0 / 4);     // All end: 1 / E[S] = 4 / 16.
  // Order and duplicates of the samples do not matter beyond their counts.
  EXPECT_DOUBLE_EQ(GittinsIndex({10, 3, 1, 2}, 1).Ratio(1, 1), 1.0 / 3);
  EXPECT_DOUBLE_EQ(GittinsIndex({2, 2, 4}, 1).Ratio(0, 2), 2.0 / 6);  // used 2 + 2 + 2.
}

TEST(GittinsIndex, IsEvaluatedAtTheStartOfTheCurrentQuantum) {
  // Quantum 3: index(a) = R(3 floor(a / 3), 3).
  const GittinsIndex g({1, 2, 3, 10}, 3);
  EXPECT_DOUBLE_EQ(g.Index(0), 1.0 / 3);    // R(0, 3), as above.
  EXPECT_DOUBLE_EQ(g.Index(2.9), 1.0 / 3);  // Same quantum.
  EXPECT_DOUBLE_EQ(g.Index(3), 0);          // R(3, 3): only {10} is left, it cannot end by 6.
  EXPECT_DOUBLE_EQ(g.Index(8), 0);          // R(6, 3): the same.
  EXPECT_DOUBLE_EQ(g.Index(9.5), 1);        // R(9, 3): {10} ends within (9, 12], using 1.
  EXPECT_DOUBLE_EQ(g.Index(12), 0);         // Outlived every sample.
  EXPECT_DOUBLE_EQ(g.Index(1e9), 0);
  // A job woken at its computed boundary may be a few ulps short of it: still crossed.
  EXPECT_DOUBLE_EQ(g.Index(3 * (1 - 1e-15)), 0);
  EXPECT_EQ(g.QuantumOf(3 * (1 - 1e-15)), 1);
  EXPECT_EQ(g.QuantumOf(2.9), 0);

  EXPECT_DOUBLE_EQ(g.ServiceToNextChange(0), 3);  // Next boundary 3.
  EXPECT_DOUBLE_EQ(g.ServiceToNextChange(2), 1);
  // In [3, 6) and [6, 9) the index is 0; it next changes at 9, whose window (9, 12] holds 10.
  EXPECT_DOUBLE_EQ(g.ServiceToNextChange(3), 6);
  EXPECT_DOUBLE_EQ(g.ServiceToNextChange(4), 5);
  EXPECT_DOUBLE_EQ(g.ServiceToNextChange(10.5), 1.5);  // In [9, 12): drops to 0 at 12.
  EXPECT_EQ(g.ServiceToNextChange(12), kInf);          // Index 0 for ever.
  EXPECT_EQ(g.ServiceToNextChange(40), kInf);
  // A sample on a boundary belongs to the window that ends there: with {1, 2, 3, 12}, 12 is
  // in (9, 12], so from 3 the index stays 0 until 9, where it is R(9, 3) = 1 / 3 (12 ends
  // after 3 more, surely).
  const GittinsIndex h({1, 2, 3, 12}, 3);
  EXPECT_DOUBLE_EQ(h.Index(8.9), 0);
  EXPECT_DOUBLE_EQ(h.ServiceToNextChange(3), 6);
  EXPECT_DOUBLE_EQ(h.Index(9), 1.0 / 3);
}

TEST(DurationDistribution, ReadsTheDurationColumnAndNamesBadFields) {
  TempFile ok("job,duration\r\na,5\r\n\r\nb,1.5\r\n");
  auto samples = workload::LoadDurationSamples(ok.path());
  ASSERT_TRUE(samples.ok()) << samples.status().message();
  EXPECT_EQ(*samples, (std::vector<double>{5, 1.5}));

  auto expect_error = [](const std::string& content, const std::string& what) {
    TempFile f(content);
    auto r = workload::LoadDurationSamples(f.path());
    ASSERT_FALSE(r.ok()) << content;
    EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().message();
  };
  expect_error("size\n1\n", "t.csv:1: missing column 'duration'");
  expect_error("duration\n1\nabc\n", "t.csv:3: field 'duration': 'abc' is not a number");
  expect_error("duration\n0\n", "t.csv:2: field 'duration': '0' must be > 0");
  expect_error("duration\n", "no 'duration' samples");
  expect_error("", "file is empty");

  auto missing = workload::LoadDurationSamples("/nonexistent/d.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
}

TEST(DurationDistribution, ShipsTiresiasYarnDistribution) {
  auto shipped = workload::LoadDurationSamples(DataDir() + "/tiresias/yarn-gput1000.csv");
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  EXPECT_EQ(shipped->size(), 1001u);
  EXPECT_EQ(*std::min_element(shipped->begin(), shipped->end()), 121);
  EXPECT_EQ(*std::max_element(shipped->begin(), shipped->end()), 53294624);
  const std::string upstream = SharedPath("data/tiresias/traces/yarn-gput1000.csv");
  if (std::filesystem::exists(upstream)) {
    auto original = workload::LoadDurationSamples(upstream);
    ASSERT_TRUE(original.ok());
    EXPECT_EQ(*shipped, *original);
  }
}

// Distribution {100, 200, 300, 1000} GPU-s, delta 100. Index by attained GPU-s a:
//   [0, 100)   R(0, 100)   = 1 / (100 + 3 x 100) = 1/400
//   [100, 200) R(100, 100) = 1 / (100 + 2 x 100) = 1/300
//   [200, 300) R(200, 100) = 1 / (100 + 100)     = 1/200
//   [300, 900) 0: only 1000 is left and it cannot end within the quantum
//   [900,1000) R(900, 100) = 1 / 100
//   >= 1000    0, for ever (no wake-ups)
constexpr const char* kDist = "duration\n100\n200\n300\n1000\n";

TEST(Gittins, OrdersByIndexAtQuantumBoundaries) {
  TempFile dist(kDist);
  // One GPU; ties go to the earlier submit.
  //  0    J1 runs. 50: J2 ties at 1/400 (J1 is still in its first quantum): J1 keeps the GPU,
  //       where LAS would switch. 100, 200: J1 rises to 1/300, 1/200.
  //  300  J1 falls to 0: J2 (1/400) preempts it and runs 300-400 (JCT 350). J3 arrives at
  //       350 and ties with J2 (50 attained, first quantum): J2 goes on.
  //  400  J3 (1/400) beats J1 (0): runs 400-700, rising then falling to 0 at 700, where it
  //       ties with J1 and J1 (earlier) takes over with 300 attained.
  //  1300 J1 reaches 900: index 1/100. J4 arrives at 1320 with 1/400 and waits.
  //  1350 J1 ends (JCT 1350). J4 (1/400) before J3 (0): 1350-1360 (JCT 40), J3 1360-1460
  //       (JCT 1110).
  auto r =
      RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(950).Build(),
                   JobBuilder(2).Gpus(1).Submit(50).Duration(100).Build(),
                   JobBuilder(3).Gpus(1).Submit(350).Duration(400).Build(),
                   JobBuilder(4).Gpus(1).Submit(1320).Duration(10).Build()},
                  kOneGpu, Request("gittins", {{"distribution", dist.path()}, {"delta", "100"}}));
  EXPECT_DOUBLE_EQ(r.Start(2), 300);
  EXPECT_DOUBLE_EQ(r.Jct(2), 350);
  EXPECT_DOUBLE_EQ(r.Start(3), 400);
  EXPECT_DOUBLE_EQ(r.Jct(1), 1350);
  EXPECT_DOUBLE_EQ(r.Start(4), 1350);
  EXPECT_DOUBLE_EQ(r.Jct(4), 40);
  EXPECT_DOUBLE_EQ(r.Jct(3), 1110);
  EXPECT_EQ(r.jobs.at(1).preemptions, 1);
  EXPECT_EQ(r.jobs.at(3).preemptions, 1);
  EXPECT_EQ(r.summary.preemptions, 2);
}

TEST(Gittins, AttainedServiceCountsGpus) {
  // Two GPUs. J1 holds both, so it attains 2 GPU-s per second: 100 at 50 s (1/300), 200 at
  // 100 s (1/200), 300 at 150 s (index 0). J2 (1 GPU) arrives at 10 and ties (1/400) with J1,
  // still in its first quantum; at 150 it preempts J1 (which cannot run on the one GPU
  // left): J2 runs 150-200 (JCT 190), J1 200-250 (50 s left). Counting seconds instead of
  // GPU-seconds would keep J1 running to 200.
  const ClusterSpec two = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  TempFile dist(kDist);
  auto r = RunScenario({JobBuilder(1).Gpus(2).Submit(0).Duration(200).Build(),
                        JobBuilder(2).Gpus(1).Submit(10).Duration(50).Build()},
                       two, Request("gittins", {{"distribution", dist.path()}, {"delta", "100"}}));
  EXPECT_DOUBLE_EQ(r.Start(2), 150);
  EXPECT_DOUBLE_EQ(r.Jct(2), 190);
  EXPECT_DOUBLE_EQ(r.Jct(1), 250);
  EXPECT_EQ(r.jobs.at(1).preemptions, 1);
}

TEST(TiresiasGittins, OrdersByIndexWithinALevel) {
  TempFile dist(kDist);
  // One GPU, one threshold at 500 GPU-s, index as above.
  //  0-300 J1 runs in level 0 (J2 arrives at 50 and ties). At 300 J1 (level 0) falls to
  //        index 0 and J2 (level 0, 1/400) preempts it: 300-400 (JCT 350). J3 arrives at
  //        320 and ties with J2.
  //  400   J3 (1/400) beats J1 (0): 400-500 (JCT 180). J1 runs 500-800 (JCT 800).
  // Plain tiresias keeps J1 running inside its level until it is demoted at 500: J2 runs
  // 500-600 (JCT 550), J3 600-700 (JCT 380), J1 700-800.
  std::vector<JobSpec> jobs = {JobBuilder(1).Gpus(1).Submit(0).Duration(600).Build(),
                               JobBuilder(2).Gpus(1).Submit(50).Duration(100).Build(),
                               JobBuilder(3).Gpus(1).Submit(320).Duration(100).Build()};
  auto r = RunScenario(
      jobs, kOneGpu,
      Request("tiresias-gittins",
              {{"distribution", dist.path()}, {"delta", "100"}, {"thresholds", "500"}}));
  EXPECT_DOUBLE_EQ(r.Jct(2), 350);
  EXPECT_DOUBLE_EQ(r.Jct(3), 180);
  EXPECT_DOUBLE_EQ(r.Jct(1), 800);
  EXPECT_EQ(r.jobs.at(1).preemptions, 1);

  auto fifo = RunScenario(jobs, kOneGpu, Request("tiresias", {{"thresholds", "500"}}));
  EXPECT_DOUBLE_EQ(fifo.Jct(2), 550);
  EXPECT_DOUBLE_EQ(fifo.Jct(3), 380);
  EXPECT_DOUBLE_EQ(fifo.Jct(1), 800);
}

TEST(TiresiasGittins, LevelsComeBeforeTheIndex) {
  TempFile dist(kDist);
  // One GPU, threshold 250. J1 (280 s) is demoted to level 1 at 250 with index 1/200;
  // J2 arrives at 260 in level 0 with only 1/400, yet preempts it: 260-310 (JCT 50), then
  // J1 runs its last 20 s, 310-330. Plain gittins keeps J1 (1/200 > 1/400): J1 ends at 280,
  // J2 runs 280-330.
  std::vector<JobSpec> jobs = {JobBuilder(1).Gpus(1).Submit(0).Duration(280).Build(),
                               JobBuilder(2).Gpus(1).Submit(260).Duration(50).Build()};
  const std::map<std::string, std::string> opts = {{"distribution", dist.path()}, {"delta", "100"}};
  std::map<std::string, std::string> leveled = opts;
  leveled["thresholds"] = "250";
  auto r = RunScenario(jobs, kOneGpu, Request("tiresias-gittins", leveled));
  EXPECT_DOUBLE_EQ(r.Jct(2), 50);
  EXPECT_DOUBLE_EQ(r.Jct(1), 330);
  auto g = RunScenario(jobs, kOneGpu, Request("gittins", opts));
  EXPECT_DOUBLE_EQ(g.Jct(1), 280);
  EXPECT_DOUBLE_EQ(g.Jct(2), 70);
}


// Determinism of every registered policy, these included: tests/engine/simulator_test.cc.

TEST(Gittins, RegisteredWithValidatedOptions) {
  const Registries& reg = BuiltinRegistries();
  for (const char* name : {"gittins", "tiresias-gittins"}) {
    const auto* e = reg.policies.Find(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->default_placement, "gpu-count");
    EXPECT_TRUE(MakePolicy(Request(name)).ok()) << name;  // Default: the shipped distribution.
  }

  auto error_of = [](const std::string& policy, std::map<std::string, std::string> options) {
    auto p = MakePolicy(Request(policy, std::move(options)));
    EXPECT_FALSE(p.ok()) << policy;
    return p.ok() ? Status() : p.status();
  };
  Status missing = error_of("gittins", {{"distribution", "/nonexistent/dist.csv"}});
  EXPECT_EQ(missing.code(), Status::Code::kNotFound);
  EXPECT_NE(missing.message().find("gittins: option 'distribution': /nonexistent/dist.csv"),
            std::string::npos)
      << missing.message();

  TempFile bad("duration\n100\n-3\n");
  Status bad_value = error_of("tiresias-gittins", {{"distribution", bad.path()}});
  EXPECT_NE(bad_value.message().find("tiresias-gittins: option 'distribution': "),
            std::string::npos);
  EXPECT_NE(bad_value.message().find("t.csv:3: field 'duration': '-3' must be > 0"),
            std::string::npos)
      << bad_value.message();

  for (const char* delta : {"0", "-100"}) {
    Status st = error_of("gittins", {{"delta", delta}});
    EXPECT_NE(st.message().find("gittins: option 'delta' must be > 0"), std::string::npos)
        << st.message();
  }
  Status not_number = error_of("gittins", {{"delta", "soon"}});
  EXPECT_NE(not_number.message().find("'delta'"), std::string::npos) << not_number.message();

  Status thresholds = error_of("tiresias-gittins", {{"thresholds", "7200:3250"}});
  EXPECT_NE(thresholds.message().find(
                "tiresias-gittins: option 'thresholds' must be positive and strictly ascending"),
            std::string::npos)
      << thresholds.message();
  Status unknown = error_of("gittins", {{"thresholds", "100"}});  // Only tiresias-gittins has it.
  EXPECT_NE(unknown.message().find("unknown option 'thresholds'"), std::string::npos);
}

}  // namespace
}  // namespace schedkit::testing
