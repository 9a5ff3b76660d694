// The `decima` and `decima-greedy` DAG schedulers (docs/decima.md): spark-sched-sim's
// DecimaScheduler.schedule at inference time, with the model of decima_model.cc.
#include <cmath>

#include "dag/decima_model.h"
#include "dag/engine.h"
#include "schedkit/trace.h"

namespace schedkit {
namespace dag {
namespace {

// Decima's actions use a stream of their own, so that the workload's draws for a seed are the
// same whatever the scheduler.
constexpr uint64_t kDecimaStream = 0x9E3779B97F4A7C15ull;

class DecimaScheduler final : public DagScheduler {
 public:
  DecimaScheduler(DecimaModel model, bool greedy) : model_(std::move(model)), greedy_(greedy) {}

  const char* Name() const override { return greedy_ ? "decima-greedy" : "decima"; }

  void Reset(uint64_t seed) override { rng_.Seed(seed ^ kDecimaStream); }

  // Softmax over the schedulable stages' scores, then over k + 1 executors for k below the
  // chosen job's commit cap (the wrapper's exec_mask); sampled, or argmax when greedy.
  DagAction Decide(const DagObservation& obs) override {
    model_.Evaluate(obs, &eval_);
    const int stage = Pick(eval_.stage_logits);
    const int job = obs.nodes[obs.schedulable[stage]].job;
    const DecimaVector exec = model_.ExecLogits(obs, eval_, job, obs.CommitCap(job));
    return {stage, Pick(exec) + 1};
  }

 private:
  int Pick(const DecimaVector& logits) {
    int best = 0;
    for (int i = 1; i < logits.size(); ++i) {
      if (logits[i] > logits[best]) best = i;
    }
    if (greedy_) return best;
    // Inverse CDF of softmax(logits) in double; draws one uniform per decision.
    double total = 0;
    weights_.resize(logits.size());
    for (int i = 0; i < logits.size(); ++i) {
      weights_[i] = std::exp(static_cast<double>(logits[i]) - logits[best]);
      total += weights_[i];
    }
    double u = rng_.Uniform() * total;
    for (int i = 0; i < logits.size(); ++i) {
      u -= weights_[i];
      if (u < 0) return i;
    }
    return static_cast<int>(logits.size()) - 1;  // Rounding at the top end.
  }

  DecimaModel model_;
  bool greedy_;
  DagRng rng_;
  DecimaModel::Evaluation eval_;  // Reused buffers.
  std::vector<double> weights_;
};

}  // namespace

Result<std::unique_ptr<DagScheduler>> MakeDecimaScheduler(const std::string& weights, bool greedy) {
  Result<DecimaModel> model =
      DecimaModel::Load(weights.empty() ? DefaultDecimaWeightsPath() : weights);
  if (!model.ok()) return model.status();
  return std::unique_ptr<DagScheduler>(new DecimaScheduler(std::move(*model), greedy));
}

}  // namespace dag

std::string DefaultDecimaWeightsPath() { return DataDir() + "/decima/decima_tpch.json"; }

}  // namespace schedkit
