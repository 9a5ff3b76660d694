// Test fixtures: run a small hand-made scenario and look results up by job id.
#ifndef SCHEDKIT_TESTS_SIM_TEST_UTIL_H_
#define SCHEDKIT_TESTS_SIM_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "schedkit/run.h"

namespace schedkit::testing {

struct ScenarioResult {
  Summary summary;
  std::map<JobId, RecordedJob> jobs;
  double Jct(JobId id) const { return jobs.at(id).jct_s(); }
  double Start(JobId id) const { return jobs.at(id).first_start_s; }
};

// Checks, for every finished job: queueing delay = first start - submit >= 0 and
// JCT >= solo runtime (rates never exceed 1 in these scenarios).
inline void ExpectJobInvariants(const Trace& trace, const MetricsRecorder& recorder) {
  for (size_t i = 0; i < trace.jobs.size(); ++i) {
    const RecordedJob r = recorder.job(i);
    if (r.outcome != RecordedJob::Outcome::kFinished) continue;
    EXPECT_GE(r.queue_s(), 0) << "job " << r.id;
    EXPECT_DOUBLE_EQ(r.queue_s(), r.first_start_s - r.submit_s);
    EXPECT_GE(r.jct_s() + 1e-9, trace.jobs[i].SoloRuntime()) << "job " << r.id;
  }
}

// Fractional shares never over-commit a GPU: for each GPU, the milli-GPU of the fractional
// jobs running on it at once (as their recorded placement says, jobs that ran once and
// finished) stay within 1000, and no whole-GPU job runs there meanwhile. Ends come before
// starts at the same time.
inline void ExpectNoGpuOverCommitted(const MetricsRecorder& recorder) {
  // (time, is start, node, gpu, milli) per job and GPU, for GPUs fractional jobs touched.
  std::vector<std::tuple<double, int, int, int, int>> events;
  std::map<std::pair<int, int>, bool> shared;  // GPUs some fractional job used.
  for (const RecordedJob& r : recorder.Jobs()) {
    if (r.outcome != RecordedJob::Outcome::kFinished || r.preemptions > 0) continue;
    Result<Placement> p = ParsePlacement(r.placement);
    if (!p.ok()) continue;
    for (const NodeShare& s : p->shares) {
      for (int g = 0; g < kMaxGpusPerNode; ++g) {
        if (!(s.gpu_mask >> g & 1)) continue;
        if (s.fractional()) shared[{s.node, g}] = true;
        events.emplace_back(r.first_start_s, 1, s.node, g, s.gpu_milli);
        events.emplace_back(r.end_s, 0, s.node, g, s.gpu_milli);
      }
    }
  }
  std::sort(events.begin(), events.end());
  std::map<std::pair<int, int>, int> booked;
  for (const auto& [time, start, node, gpu, milli] : events) {
    if (!shared.count({node, gpu})) continue;
    int& b = booked[{node, gpu}];
    b += start ? milli : -milli;
    EXPECT_LE(b, kMilliPerGpu) << "GPU " << gpu << " of node " << node << " at t=" << time;
  }
}

inline ScenarioResult RunScenario(std::vector<JobSpec> jobs, const ClusterSpec& cluster,
                                  PolicyRequest request, double overhead_s = 0,
                                  std::vector<MembershipEvent> membership = {}) {
  Trace trace;
  trace.source = "scenario";
  trace.jobs = std::move(jobs);
  SimulatorOptions options;
  options.overheads = RestartOverheads(overhead_s);
  options.membership = std::move(membership);
  Result<RunOutput> run = RunSimulation(trace, cluster, request, options);
  EXPECT_TRUE(run.ok()) << (run.ok() ? "" : run.status().message());
  ScenarioResult out;
  if (!run.ok()) return out;
  ExpectJobInvariants(trace, *run->recorder);
  ExpectNoGpuOverCommitted(*run->recorder);
  out.summary = run->summary;
  for (const RecordedJob& r : run->recorder->Jobs()) out.jobs[r.id] = r;
  return out;
}

// Policies the every-policy loops over generated traces leave out: `dynamic` simulates
// its 9 candidates to the end of the backlog every 300 s (minutes on those traces);
// tests/policies/dynamic_test.cc covers it (invariants, determinism, its choice).
inline bool TooSlowForEveryPolicyLoops(const std::string& policy) { return policy == "dynamic"; }

// A built-in placement module with its default options.
inline std::unique_ptr<PlacementModule> MakeBuiltinPlacement(const std::string& name) {
  const auto* entry = BuiltinRegistries().placements.Find(name);
  EXPECT_NE(entry, nullptr) << name;
  ModuleContext ctx;
  return std::move(entry->factory(ctx)).value();
}

// A seeded workload for policies that keep state only while someone waits: four bursts
// that overfill 2 x 8 GPUs, each followed by a quiet spell of short 1-GPU jobs that
// start at once while a long job of the burst runs on into the next bursts. Nobody
// waits for more decisions than jobs run in each quiet spell.
inline std::vector<JobSpec> BurstsAndQuietSpells(uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<JobSpec> jobs;
  auto add = [&](double submit, int gpus, double duration) {
    const JobId id = static_cast<JobId>(jobs.size()) + 1;
    jobs.push_back(JobBuilder(id).Gpus(gpus).Submit(submit).Duration(duration).Build());
  };
  for (int burst = 0; burst < 4; ++burst) {
    const double t0 = 40000.0 * burst;
    add(t0, 1, 30000 + std::round(u(rng) * 40000));  // Runs into the next bursts.
    for (int i = 0; i < 10; ++i) {
      add(t0 + std::round(u(rng) * 600), 1 << static_cast<int>(u(rng) * 3),
          std::round(std::exp(u(rng) * 5) * 40));
    }
    for (int i = 0; i < 30; ++i) add(t0 + 15000 + 700 * i, 1, 90 + std::round(u(rng) * 200));
  }
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](const JobSpec& a, const JobSpec& b) { return a.submit_s < b.submit_s; });
  return jobs;
}

// Everything a decision says, in one comparable string: its starts (with placements),
// preemptions, rejections and wake-up time (exact, in hex).
inline std::string Describe(const Decisions& d) {
  std::string s;
  for (const StartDecision& st : d.start) {
    s += "start " + std::to_string(st.job) + " " + st.placement.ToString() + "; ";
  }
  for (JobId id : d.preempt) s += "preempt " + std::to_string(id) + "; ";
  for (JobId id : d.reject) s += "reject " + std::to_string(id) + "; ";
  char wake[64];
  std::snprintf(wake, sizeof wake, "wake %a", d.wake_at);
  return s + wake;
}

inline PolicyRequest Request(std::string policy, std::map<std::string, std::string> options = {}) {
  PolicyRequest r;
  r.policy = std::move(policy);
  r.options = std::move(options);
  return r;
}

}  // namespace schedkit::testing

#endif  // SCHEDKIT_TESTS_SIM_TEST_UTIL_H_
