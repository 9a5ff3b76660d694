// Test fixtures: run a small hand-made scenario and look results up by job id.
#ifndef SCHEDKIT_TESTS_SIM_TEST_UTIL_H_
#define SCHEDKIT_TESTS_SIM_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <map>
#include <string>
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
    const RecordedJob& r = recorder.jobs()[i];
    if (r.outcome != RecordedJob::Outcome::kFinished) continue;
    EXPECT_GE(r.queue_s(), 0) << "job " << r.id;
    EXPECT_DOUBLE_EQ(r.queue_s(), r.first_start_s - r.submit_s);
    EXPECT_GE(r.jct_s() + 1e-9, trace.jobs[i].SoloRuntime()) << "job " << r.id;
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
  out.summary = run->summary;
  for (const RecordedJob& r : run->recorder->jobs()) out.jobs[r.id] = r;
  return out;
}

// Policies the every-policy loops over generated traces leave out: `dynamic` simulates
// its 9 candidates to the end of the backlog every 300 s (minutes on those traces);
// tests/policies/dynamic_test.cc covers it (invariants, determinism, its choice).
inline bool TooSlowForEveryPolicyLoops(const std::string& policy) { return policy == "dynamic"; }

inline PolicyRequest Request(std::string policy, std::map<std::string, std::string> options = {}) {
  PolicyRequest r;
  r.policy = std::move(policy);
  r.options = std::move(options);
  return r;
}

}  // namespace schedkit::testing

#endif  // SCHEDKIT_TESTS_SIM_TEST_UTIL_H_
