// LAS re-examines a running job's place every quantum, but only while someone waits:
// with nobody waiting no key change can reorder anything (issue 21: three jobs of 1e12 s
// used to cost 1e10 wake-ups; such times are now refused as past the clock's 2^32 s, so the
// test runs 4e9 s jobs, which cost 4e7 wake-ups before the fix). The times it is woken at once someone waits are still
// those of a wake-up every quantum since the job started. And while someone waits, it is
// woken only at the first quantum at or after which a comparison of its last decision can
// come out the other way (issue 20; ModularPolicy::BookDecisions): every_quantum=true wakes
// at every one, and must decide the same starts and preemptions at the same times.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "mechanisms/exact_fmod.h"
#include "schedkit/compat.h"
#include "schedkit/simulator.h"
#include "sim_test_util.h"

namespace schedkit::testing {
namespace {

TEST(LasWakeups, Issue21VeryLongJobsWithNobodyWaitingCostNoWakeups) {
  // Four GPUs, three 1-GPU jobs of 4e9 s: all run at once and nobody ever waits, so the
  // only events are the three arrivals and the three completions.
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(4e9).Build(),
                        JobBuilder(2).Gpus(1).Submit(1).Duration(4e9).Build(),
                        JobBuilder(3).Gpus(1).Submit(2).Duration(4e9).Build()},
                       ClusterSpec::Uniform(1, 1, 4, 0, 0), Request("las"));
  for (JobId id : {1, 2, 3}) EXPECT_DOUBLE_EQ(r.Jct(id), 4e9) << "job " << id;
  EXPECT_EQ(r.summary.events, 6);
  EXPECT_EQ(r.summary.preemptions, 0);
}

// Every start, preemption and finish, in order, with its time and placement.
class Log final : public SimulationObserver {
 public:
  void OnJobStart(const JobSpec& job, Time now, const Placement& p) override {
    Add("start", job.id, now, p.ToString());
  }
  void OnJobPreempt(const JobSpec& job, Time now) override { Add("preempt", job.id, now, ""); }
  void OnJobFinish(const JobSpec& job, Time now, Time, double, int, const Placement&) override {
    Add("finish", job.id, now, "");
  }
  std::vector<std::string> lines;

 private:
  void Add(const char* what, JobId id, Time t, const std::string& where) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%a %s %lld %s", t, what, static_cast<long long>(id),
                  where.c_str());
    lines.emplace_back(buf);
  }
};

struct Outcome {
  std::vector<std::string> log;
  int64_t events = 0;
};

Outcome RunLas(const std::vector<JobSpec>& jobs, const ClusterSpec& cluster, bool every_quantum,
               const PolicyKnobs& knobs = PolicyKnobs(), double quantum_s = 50,
               double overhead_s = 0) {
  PolicyRequest req = Request("las", {{"quantum_s", std::to_string(quantum_s)},
                                      {"every_quantum", every_quantum ? "true" : "false"}});
  auto policy = MakePolicy(req, knobs, BuiltinRegistries());
  EXPECT_TRUE(policy.ok()) << (policy.ok() ? "" : policy.status().message());
  if (!policy.ok()) return {};
  Trace trace;
  trace.jobs = jobs;
  SimulatorOptions options;
  options.overheads = RestartOverheads(overhead_s);
  Simulator sim(&trace, &cluster, options);
  Log log;
  sim.AddObserver(&log);
  const Status run = sim.Run(policy->get());
  EXPECT_TRUE(run.ok()) << run.message();
  return {log.lines, sim.stats().events};
}

// Two GPUs, quantum 50. J1 (2 GPUs, 10,000 s) runs alone from 0; at 1,000 J2 (1 GPU,
// 1,900 s) arrives with no attained service and preempts it (J1 has 2,000 GPU-s); J1
// waits for both GPUs. J3 (1 GPU, 1,500 s) arrives at 1,110 and takes the free GPU.
// Neither passes J1's 2,000 GPU-s before it ends (J3 at 2,610 with 1,500, J2 at 2,900
// with 1,900), and then J1 resumes: done at 11,900. Every quantum, the policy is woken
// at J2's wake-ups 1,050 ... 2,900 (38) and J3's 1,160 ... 2,610 (30; each one's last
// falls on its end, and a wake-up counts as an event of its own): 68, plus three
// arrivals and three completions, 74 events. Skipping, it is woken only after each
// decision that did something (J2's start at 1,000: woken at 1,050; J3's at 1,110: at
// 1,150): at 1,050 and 1,150 it finds J2's 50 and 150 GPU-s against J1's 2,000, so the
// next wake-up could only come at J2's crossing, 3,000, after both ends: 8 events.
TEST(LasWakeups, WakesOnlyWhereAnOrderCanChange) {
  const std::vector<JobSpec> jobs = {JobBuilder(1).Gpus(2).Submit(0).Duration(10000).Build(),
                                     JobBuilder(2).Gpus(1).Submit(1000).Duration(1900).Build(),
                                     JobBuilder(3).Gpus(1).Submit(1110).Duration(1500).Build()};
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  const Outcome every = RunLas(jobs, cluster, true);
  const Outcome skipping = RunLas(jobs, cluster, false);
  EXPECT_EQ(every.events, 74);
  EXPECT_EQ(skipping.events, 8);
  EXPECT_EQ(skipping.log, every.log);
  auto r = RunScenario(jobs, cluster, Request("las", {{"quantum_s", "50"}}));
  EXPECT_DOUBLE_EQ(r.Jct(1), 11900);
  EXPECT_DOUBLE_EQ(r.Jct(2), 1900);
  EXPECT_DOUBLE_EQ(r.Jct(3), 1500);
  EXPECT_EQ(r.summary.preemptions, 1);
}

TEST(LasWakeups, WakeupsSleptThroughKeepTheirTimes) {
  // Two GPUs, quantum 50. J1 (1,220 s) runs from 0; J2 (1,500 s) from 1,010, beside it;
  // nobody waits, so neither is woken. At 1,200 J3 (10,000 s) arrives with 0 attained
  // service: J1 has the most (1,200) and is preempted; now J1 waits. J2's wake-ups are
  // every 50 s since its start (1,060, 1,110, ...): at 2,210 its attained service
  // reaches J1's 1,200 and the tie goes to J1 (earlier submit), so J2 is preempted and
  // J1 finishes its last 20 s at 2,230 (JCT 2,230). J2 restarts then with 300 s left:
  // done at 2,530 (JCT 1,520). J3 is never preempted: JCT 10,000. Had J2's wake-ups been
  // counted from 1,200 instead (1,250, ...), J1 would resume at 2,250.
  // Wake-ups: after 1,200 the next one is J2's 1,210; there J2 (200) and J3 (10) are
  // ahead of J1 (1,200), and the first to catch up is J2, at 2,210 exactly: its own
  // wake-up then (J3's are at 1,250 ... 2,200, then 2,250). Every quantum, it would be
  // woken at J2's 1,210 ... 2,210 (21) and J3's 1,250 ... 2,200 (20): 47 events, not 8.
  const std::vector<JobSpec> jobs = {JobBuilder(1).Gpus(1).Submit(0).Duration(1220).Build(),
                                     JobBuilder(2).Gpus(1).Submit(1010).Duration(1500).Build(),
                                     JobBuilder(3).Gpus(1).Submit(1200).Duration(10000).Build()};
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 2, 0, 0);
  auto r = RunScenario(jobs, cluster, Request("las", {{"quantum_s", "50"}}));
  EXPECT_DOUBLE_EQ(r.Jct(1), 2230);
  EXPECT_DOUBLE_EQ(r.Jct(2), 1520);
  EXPECT_DOUBLE_EQ(r.Jct(3), 10000);
  EXPECT_EQ(r.summary.preemptions, 2);
  EXPECT_EQ(r.summary.events, 8);
  const Outcome every = RunLas(jobs, cluster, true);
  EXPECT_EQ(every.events, 47);
  EXPECT_EQ(RunLas(jobs, cluster, false).log, every.log);
}

// Random busy workloads (seeded): jobs of 1-8 GPUs arriving faster than 16 GPUs serve
// them, so LAS preempts all the time (also running jobs passing each other at different
// rates, and restart overheads). Skipping changes no start, preemption or finish.
std::vector<JobSpec> BusyJobs(uint32_t seed, int n) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<JobSpec> jobs;
  double t = 0;
  for (int i = 1; i <= n; ++i) {
    t += -std::log(1 - u(rng)) * 300;
    const int gpus = 1 << static_cast<int>(u(rng) * 4);
    jobs.push_back(JobBuilder(i).Gpus(gpus).Submit(std::round(t)).Duration(
                                     std::round(std::exp(u(rng) * 9) * 20)).Build());
  }
  return jobs;
}

TEST(LasWakeups, SkippingDecidesAsEveryQuantumOnBusyClusters) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 2, 8, 0, 0);
  for (uint32_t seed : {1, 2, 3, 4}) {
    const std::vector<JobSpec> jobs = BusyJobs(seed, 60);
    const Outcome every = RunLas(jobs, cluster, true, PolicyKnobs(), 300, 10);
    const Outcome skipping = RunLas(jobs, cluster, false, PolicyKnobs(), 300, 10);
    EXPECT_EQ(skipping.log, every.log) << "seed " << seed;
    EXPECT_LT(skipping.events, every.events) << "seed " << seed;
  }
}

TEST(LasWakeups, SkippingOnWallSecondsDecidesAsEveryQuantum) {
  // LAS on attained wall-seconds (the Blox profile's, there under 300-s decision rounds,
  // which turn the skipping off): every running key grows at the same rate.
  PolicyKnobs wall;
  wall.las_attained = AttainedService::kWallSeconds;
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 2, 8, 0, 0);
  for (uint32_t seed : {5, 6}) {
    const std::vector<JobSpec> jobs = BusyJobs(seed, 60);
    const Outcome every = RunLas(jobs, cluster, true, wall, 300, 10);
    const Outcome skipping = RunLas(jobs, cluster, false, wall, 300, 10);
    EXPECT_EQ(skipping.log, every.log) << "seed " << seed;
    EXPECT_LT(skipping.events, every.events) << "seed " << seed;
  }
}

// Running jobs of different rates pass each other (ModularPolicy's running index keeps
// one ordered set per rate). Three GPUs, quantum 100. J1 (1 GPU, 2,300 s) and J2 (2 GPUs,
// 1,300 s) run from 0. At 1,000 J3 (1 GPU, 5,000 s) arrives with 0 GPU-s: the order is J3
// (0), J1 (1,000), J2 (2,000), so J2 does not fit and is preempted (300 s left).
// J1 catches J2's 2,000 at 2,000 (a tie: J1 stays ahead, lower id) and passes it at its
// wake-up 2,100: J1 is preempted (200 s left) and J2 takes its GPU and the free one.
// J2's GPU-seconds grow twice as fast: 2,000 + 2 x 50 passes J1's 2,100 at 2,150, seen at
// J2's wake-up 2,200 (J2 2,200 behind J3 1,200 and J1 2,100): J2 is preempted (200 s
// left) and J1 resumes. At J1's wake-up 2,300 it ties J2's 2,200 and stays ahead (lower
// id); it ends at 2,400 (JCT 2,400); J2 runs its last 200 s on the freed GPUs: done at
// 2,600. J3 never stops: JCT 5,000.
TEST(LasWakeups, RunningJobsOfDifferentRatesPassEachOther) {
  const std::vector<JobSpec> jobs = {JobBuilder(1).Gpus(1).Submit(0).Duration(2300).Build(),
                                     JobBuilder(2).Gpus(2).Submit(0).Duration(1300).Build(),
                                     JobBuilder(3).Gpus(1).Submit(1000).Duration(5000).Build()};
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 3, 0, 0);
  auto r = RunScenario(jobs, cluster, Request("las", {{"quantum_s", "100"}}));
  EXPECT_DOUBLE_EQ(r.Jct(1), 2400);
  EXPECT_DOUBLE_EQ(r.Jct(2), 2600);
  EXPECT_DOUBLE_EQ(r.Jct(3), 5000);
  EXPECT_EQ(r.summary.preemptions, 3);
  const Outcome every = RunLas(jobs, cluster, true, PolicyKnobs(), 100);
  const Outcome skipping = RunLas(jobs, cluster, false, PolicyKnobs(), 100);
  EXPECT_EQ(skipping.log, every.log);
  EXPECT_LT(skipping.events, every.events);
}

// Jobs of one size arriving together tie on their keys all the way (the running index
// orders them by submit time and id, as the queue does), and eight sizes make eight rate
// classes whose jobs pass each other. Skipping changes no start, preemption or finish.
TEST(LasWakeups, TiesAndManyRatesDecideAsEveryQuantum) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 3, 8, 0, 0);
  for (uint32_t seed : {7, 8}) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<JobSpec> jobs;
    for (int i = 1; i <= 80; ++i) {
      const double submit = 600 * std::floor(u(rng) * 40);  // ~2 jobs per arrival time.
      const int gpus = 1 + static_cast<int>(u(rng) * 8);
      const double duration = 100 * std::round(std::exp(u(rng) * 6));
      jobs.push_back(JobBuilder(i).Gpus(gpus).Submit(submit).Duration(duration).Build());
      if (i % 4 == 0) {  // A twin: the same size at the same time.
        ++i;
        jobs.push_back(JobBuilder(i).Gpus(gpus).Submit(submit).Duration(duration).Build());
      }
    }
    std::stable_sort(jobs.begin(), jobs.end(),
                     [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
    const Outcome every = RunLas(jobs, cluster, true, PolicyKnobs(), 250, 10);
    const Outcome skipping = RunLas(jobs, cluster, false, PolicyKnobs(), 250, 10);
    EXPECT_EQ(skipping.log, every.log) << "seed " << seed;
    EXPECT_LT(skipping.events, every.events) << "seed " << seed;
  }
}

// Bursts that overfill the cluster, each followed by a quiet spell of short 1-GPU jobs
// that start at once, while long jobs of the burst keep running (BurstsAndQuietSpells):
// nobody waits for more decisions than jobs run, so ModularPolicy drops its running
// index and wake-up phases (UpkeepIndex), and the next burst rebuilds them from the running jobs and their
// wake-ups, some started while they were dropped. Skipping changes no start, preemption
// or finish.
TEST(LasWakeups, IndexDroppedWhileNobodyWaitsDecidesAsEveryQuantum) {
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 2, 8, 0, 0);
  for (uint32_t seed : {9, 10, 12, 13}) {
    const std::vector<JobSpec> jobs = BurstsAndQuietSpells(seed);
    const Outcome every = RunLas(jobs, cluster, true, PolicyKnobs(), 300, 10);
    const Outcome skipping = RunLas(jobs, cluster, false, PolicyKnobs(), 300, 10);
    EXPECT_EQ(skipping.log, every.log) << "seed " << seed;
    EXPECT_LT(skipping.events, every.events) << "seed " << seed;
  }
}

// The wake-ups' phases (ModularPolicy: which wake-up may come next) are ExactFmod's, which
// must be std::fmod's to the bit: at the times a simulation reaches, near and at multiples
// of the period (where the quotient's rounding puts its integer part one off), and on the
// edges it hands to std::fmod.
TEST(LasWakeups, PhasesAreFmodToTheBit) {
  auto bits = [](double v) {
    uint64_t b;
    std::memcpy(&b, &v, sizeof(b));
    return b;
  };
  int64_t checked = 0;
  auto check = [&](double x, double y) {
    const double want = std::fmod(x, y);
    const double got = ExactFmod(x, y);
    ++checked;
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got)) << x << " mod " << y;
    } else {
      ASSERT_EQ(bits(got), bits(want))
          << std::hexfloat << x << " mod " << y << ": " << got << " vs " << want;
    }
  };
  std::mt19937_64 rng(20);
  std::uniform_real_distribution<double> unit(0, 1);
  const double periods[] = {300, 60, 0.1, 1.0 / 3, 7.25, 86400, 1e-3};
  for (double y : periods) {
    for (int i = 0; i < 200000; ++i) {
      const double x = std::pow(10.0, 12 * unit(rng) - 3);  // 1e-3 .. 1e9 s.
      check(x, y);
      // At a multiple of the period and an ulp or two either side of it.
      const double k = std::floor(x / y);
      double m = k * y;
      for (int step = 0; step < 3; ++step) m = std::nextafter(m, 0.0);
      for (int step = 0; step < 6; ++step, m = std::nextafter(m, INFINITY)) check(m, y);
    }
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double x : {0.0, -0.0, -5.0, -300.0, 1e300, 0x1p52 * 300, 0x1p53 * 300, inf, -inf, nan,
                   std::numeric_limits<double>::denorm_min(), 299.99999999999994, 300.0, 600.0}) {
    for (double y :
         {300.0, 0.0, -300.0, inf, nan, std::numeric_limits<double>::denorm_min(), 1e-300}) {
      check(x, y);
    }
  }
  EXPECT_GT(checked, 8000000);
}

}  // namespace
}  // namespace schedkit::testing
