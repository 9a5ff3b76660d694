// The DAG learning environment: schedkit::Environment over the DAG engine (docs/learning.md).
#include "dag/engine.h"
#include "schedkit/dag.h"

namespace schedkit {
namespace {

Tensor IntTensor(std::vector<int64_t> shape, std::vector<int64_t> values) {
  return Tensor{std::move(shape), std::move(values)};
}

class DagEnvironment final : public Environment {
 public:
  DagEnvironment(const DagConfig& config, std::shared_ptr<const DagWorkload> workload)
      : workload_(std::move(workload)), engine_(config, workload_.get()) {}

  const char* Name() const override { return "dag"; }

  Observation Reset(uint64_t seed) override {
    engine_.Reset(seed);
    started_ = true;
    return DagObservationTensors(engine_.observation());
  }

  Result<StepResult> Step(const Action& action) override {
    if (!started_) return Status::InvalidArgument("dag env: Step before Reset");
    if (engine_.done()) return Status::InvalidArgument("dag env: the episode has ended; Reset");
    if (action.size() != 2) {
      return Status::InvalidArgument("dag env: action must be {stage_idx, num_exec}, got " +
                                     std::to_string(action.size()) + " values");
    }
    DagAction a;
    if (action[0] < -1 || action[0] > INT32_MAX || action[1] < INT32_MIN || action[1] > INT32_MAX) {
      return Status::InvalidArgument("dag env: action out of range");
    }
    a.stage = static_cast<int>(action[0]);
    a.num_exec = static_cast<int>(action[1]);
    Result<dag::StepOutcome> out = engine_.Step(a);
    if (!out.ok()) return out.status();
    StepResult r;
    r.reward = out->reward;
    r.terminated = out->done;
    r.observation = DagObservationTensors(engine_.observation());
    r.info["wall_time"] = engine_.now_ms();
    r.info["steps"] = static_cast<double>(engine_.steps());
    if (out->done) AddJctInfo(&r.info);
    return r;
  }

 private:
  // The episode's JCTs (s) for learners that report them (the cluster env's keys).
  void AddJctInfo(std::map<std::string, double>* info) const {
    const std::vector<DagJobResult> jobs = engine_.JobResults();
    double sum = 0;
    for (const DagJobResult& j : jobs) sum += j.jct_s();
    (*info)["sum_jct_s"] = sum;
    (*info)["avg_jct_s"] = jobs.empty() ? 0 : sum / static_cast<double>(jobs.size());
  }

  std::shared_ptr<const DagWorkload> workload_;
  dag::Engine engine_;
  bool started_ = false;
};

}  // namespace

Observation DagObservationTensors(const DagObservation& obs) {
  const int64_t n = static_cast<int64_t>(obs.nodes.size());
  std::vector<double> nodes;
  nodes.reserve(3 * n);
  std::vector<int64_t> node_job, node_stage;
  for (const DagNode& node : obs.nodes) {
    nodes.push_back(node.remaining_tasks);
    nodes.push_back(node.recent_duration_ms);
    nodes.push_back(node.schedulable() ? 1.0 : 0.0);
    node_job.push_back(node.job);
    node_stage.push_back(node.stage);
  }
  std::vector<int64_t> edges;
  for (const auto& e : obs.edges) {
    edges.push_back(e[0]);
    edges.push_back(e[1]);
  }
  const int64_t jobs = obs.num_jobs();
  Observation o;
  o["nodes"] = Tensor{{n, 3}, std::move(nodes)};
  o["edge_links"] = IntTensor({static_cast<int64_t>(obs.edges.size()), 2}, std::move(edges));
  o["dag_ptr"] = IntTensor({jobs + 1}, {obs.job_ptr.begin(), obs.job_ptr.end()});
  o["num_committable_execs"] = IntTensor({}, {obs.num_committable});
  o["source_job_idx"] = IntTensor({}, {obs.source_job});
  o["exec_supplies"] = IntTensor({jobs}, {obs.exec_supply.begin(), obs.exec_supply.end()});
  o["job_ids"] = IntTensor({jobs}, {obs.job_ids.begin(), obs.job_ids.end()});
  o["node_job"] = IntTensor({n}, std::move(node_job));
  o["node_stage"] = IntTensor({n}, std::move(node_stage));
  o["schedulable_nodes"] = IntTensor({static_cast<int64_t>(obs.schedulable.size())},
                                     {obs.schedulable.begin(), obs.schedulable.end()});
  o["num_executors"] = IntTensor({}, {obs.num_executors});
  o["wall_time"] = Tensor{{}, std::vector<double>{obs.now_ms}};
  return o;
}

Result<std::unique_ptr<Environment>> MakeDagEnvironment(
    const DagConfig& config, std::shared_ptr<const DagWorkload> workload) {
  SCHEDKIT_RETURN_IF_ERROR(config.Validate());
  if (workload == nullptr || workload->dags.empty()) {
    return Status::InvalidArgument("dag env: the workload has no DAG");
  }
  return std::unique_ptr<Environment>(new DagEnvironment(config, std::move(workload)));
}

Result<std::unique_ptr<Environment>> MakeDagEnvironment(const DagConfig& config) {
  Result<DagWorkload> w = LoadDagWorkload(DefaultDagWorkloadPath());
  if (!w.ok()) return w.status();
  return MakeDagEnvironment(config, std::make_shared<const DagWorkload>(std::move(*w)));
}

}  // namespace schedkit
