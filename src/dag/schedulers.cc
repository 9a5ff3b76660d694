// The heuristic DAG schedulers (spark-sched-sim's round-robin family) and the name factory
// (Decima is in decima.cc).
#include <algorithm>
#include <cmath>

#include "dag/decima_model.h"
#include "schedkit/dag.h"
#include "schedkit/registry.h"

namespace schedkit {
namespace {

// Within a job: a schedulable stage with no incomplete parent first, else the first
// schedulable one. Returns its index in obs.schedulable, or -1.
int FindStage(const DagObservation& obs, int job) {
  int first = -1;
  for (int node = obs.job_ptr[job]; node < obs.job_ptr[job + 1]; ++node) {
    const DagNode& n = obs.nodes[node];
    if (!n.schedulable()) continue;
    if (n.active_parents == 0) return n.schedulable_index;
    if (first == -1) first = n.schedulable_index;
  }
  return first;
}

class RoundRobinScheduler final : public DagScheduler {
 public:
  RoundRobinScheduler(bool dynamic_cap, int fixed_cap, const char* name)
      : dynamic_cap_(dynamic_cap), fixed_cap_(fixed_cap), name_(name) {}

  const char* Name() const override { return name_; }

  DagAction Decide(const DagObservation& obs) override {
    const int jobs = obs.num_jobs();
    const int cap = dynamic_cap_ ? static_cast<int>(std::ceil(static_cast<double>(obs.num_executors) /
                                                              std::max(1, jobs)))
                                 : fixed_cap_;
    // (a) Keep the released executors in their job when it has work.
    if (obs.source_job < jobs) {
      const int stage = FindStage(obs, obs.source_job);
      if (stage != -1) return {stage, obs.num_committable};
    }
    // (b) Jobs in arrival order, up to the cap.
    for (int j = 0; j < jobs; ++j) {
      if (j == obs.source_job || obs.exec_supply[j] >= cap) continue;
      const int stage = FindStage(obs, j);
      if (stage == -1) continue;
      return {stage, std::min(obs.num_committable, cap - obs.exec_supply[j])};
    }
    return {-1, obs.num_committable};  // (c) Nothing to do: release to the common pool.
  }

 private:
  bool dynamic_cap_;
  int fixed_cap_;
  const char* name_;
};

}  // namespace

std::unique_ptr<DagScheduler> MakeRoundRobinScheduler(bool dynamic_cap, int fixed_cap,
                                                      const char* name) {
  return std::make_unique<RoundRobinScheduler>(dynamic_cap, fixed_cap, name);
}

std::vector<std::string> DagSchedulerNames() {
  return {"fair", "fifo", "fifo-half", "decima", "decima-greedy"};
}

std::vector<std::pair<std::string, std::string>> DagSchedulerOptions(const std::string& name) {
  if (name == "decima" || name == "decima-greedy") {
    return {{"weights", "Decima weights JSON (default <data>/decima/decima_tpch.json)"}};
  }
  return {};
}

Result<std::unique_ptr<DagScheduler>> MakeDagScheduler(
    const std::string& name, const DagConfig& config,
    const std::map<std::string, std::string>& options) {
  const std::vector<std::string> names = DagSchedulerNames();
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const std::string& s : names) known += (known.empty() ? "" : ", ") + s;
    return Status::InvalidArgument("unknown DAG scheduler '" + name + "' (known: " + known + ")");
  }
  std::vector<OptionSpec> specs;
  for (const auto& [key, help] : DagSchedulerOptions(name)) {
    specs.push_back({key, OptionSpec::Type::kString, "", help});
  }
  Result<OptionValues> values = OptionValues::Parse("DAG scheduler '" + name + "'", specs, options);
  if (!values.ok()) return values.status();
  const int n = config.num_executors;
  if (name == "fair") return MakeRoundRobinScheduler(true, n, "fair");
  if (name == "fifo") return MakeRoundRobinScheduler(false, n, "fifo");
  if (name == "fifo-half") return MakeRoundRobinScheduler(false, (n + 1) / 2, "fifo-half");
  return dag::MakeDecimaScheduler(values->String("weights"), name == "decima-greedy");
}

}  // namespace schedkit
