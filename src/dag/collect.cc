// Experience pools: (state, action, reward, done) steps as JSON lines, loadable without schedkit.
#include <fstream>

#include <nlohmann/json.hpp>

#include "dag/engine.h"
#include "schedkit/dag.h"

namespace schedkit {
namespace {

nlohmann::ordered_json TensorJson(const Tensor& t) {
  nlohmann::ordered_json j;
  j["shape"] = t.shape;
  std::visit([&](const auto& values) { j["data"] = values; }, t.values);
  return j;
}

nlohmann::ordered_json ObservationJson(const Observation& o) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, tensor] : o) j[name] = TensorJson(tensor);  // std::map: sorted names.
  return j;
}

}  // namespace

Result<DagCollectStats> CollectDagExperience(const DagConfig& config, const DagWorkload& workload,
                                             DagScheduler& scheduler, uint64_t seed, int64_t steps,
                                             const std::string& path) {
  SCHEDKIT_RETURN_IF_ERROR(config.Validate());
  if (steps < 1) return Status::InvalidArgument("collect: --steps must be >= 1");
  if (workload.dags.empty()) return Status::InvalidArgument("collect: the workload has no DAG");
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot open for writing");
  DagCollectStats stats;
  dag::Engine engine(config, &workload);
  for (uint64_t episode_seed = seed; stats.steps < steps; ++episode_seed) {
    engine.Reset(episode_seed);
    scheduler.Reset(episode_seed);
    ++stats.episodes;
    for (int64_t step = 0; !engine.done() && stats.steps < steps; ++step) {
      const DagObservation& obs = engine.observation();
      nlohmann::ordered_json line;
      line["episode"] = stats.episodes - 1;
      line["seed"] = episode_seed;
      line["step"] = step;
      line["state"] = ObservationJson(DagObservationTensors(obs));
      const DagAction action = scheduler.Decide(obs);
      line["action"] = {action.stage, action.num_exec};
      Result<dag::StepOutcome> r = engine.Step(action);
      if (!r.ok()) {
        return Status::InvalidArgument(std::string(scheduler.Name()) + ": " + r.status().message());
      }
      ++stats.steps;
      line["reward"] = r->reward;
      line["done"] = r->done;
      line["truncated"] = !r->done && stats.steps == steps;
      out << line.dump() << '\n';
    }
    if (engine.done()) ++stats.completed_episodes;
  }
  if (!out) return Status::IoError(path + ": write failed");
  return stats;
}

}  // namespace schedkit
