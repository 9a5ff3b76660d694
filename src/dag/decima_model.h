// The Decima GNN of spark-sched-sim (docs/decima.md), evaluated with Eigen in float32 like the
// PyTorch original: node encoder with leaf-to-root message passing, DAG and global summaries,
// a stage-score head over the schedulable stages and an executor-count head for one job.
#ifndef SCHEDKIT_DAG_DECIMA_MODEL_H_
#define SCHEDKIT_DAG_DECIMA_MODEL_H_

#include <Eigen/Dense>
#include <memory>
#include <string>
#include <vector>

#include "schedkit/dag.h"

namespace schedkit::dag {

using DecimaMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;
using DecimaVector = Eigen::Matrix<float, Eigen::Dynamic, 1>;

// A PyTorch nn.Sequential of Linear layers with an activation between them (not after the
// last): `make_mlp` of spark-sched-sim.
struct DecimaMlp {
  enum class Activation { kLeakyRelu, kTanh };
  Activation activation = Activation::kLeakyRelu;
  std::vector<DecimaMatrix> weights;  // [out, in], PyTorch layout.
  std::vector<DecimaVector> biases;

  int in() const { return static_cast<int>(weights.front().cols()); }
  int out() const { return static_cast<int>(weights.back().rows()); }
  // Columns of `x` are inputs to layer `first`; returns one output column per input column.
  DecimaMatrix Apply(const DecimaMatrix& x, size_t first = 0) const;
  // The activation between layers, in place.
  void Activate(DecimaMatrix* z) const;
};

// Node features (spark-sched-sim's DecimaObsWrapper), one column per observation node:
// commit cap / N, +1 for the source job's nodes else -1, supply / N, remaining tasks / 200,
// remaining tasks x most recent duration (ms) / 1e5.
inline constexpr int kDecimaNodeFeatures = 5;
inline constexpr int kDecimaDagFeatures = 3;  // The first three: per-job features.
DecimaMatrix DecimaNodeFeatures(const DagObservation& obs);

class DecimaModel {
 public:
  // Reads the weights JSON ({"tensors": {name: {"shape", "data"}}}, the layout of
  // shared/data/decima/decima_tpch.json). Layer sizes come from the file and are checked
  // against each other; errors name the file and the tensor.
  static Result<DecimaModel> Load(const std::string& path);

  // Everything a decision needs, computed once per observation.
  struct Evaluation {
    DecimaMatrix x;             // Node features [5, nodes].
    DecimaMatrix h_node;        // Node embeddings [embed, nodes].
    DecimaMatrix h_dag;         // Per active job [embed, jobs].
    DecimaVector h_glob;        // [embed].
    DecimaVector stage_logits;  // One per obs.schedulable entry, in that order.
  };
  // REQUIRES: obs has at least one node.
  void Evaluate(const DagObservation& obs, Evaluation* out) const;

  // Scores of committing k + 1 executors to active job `job`, k = 0..count-1 (the executor
  // head's input is k / N). The policy masks k >= obs.CommitCap(job).
  DecimaVector ExecLogits(const DagObservation& obs, const Evaluation& eval, int job,
                          int count) const;

  int embed_dim() const { return prep_.out(); }

 private:
  void EncodeNodes(const DagObservation& obs, Evaluation* out) const;

  DecimaMlp prep_, msg_, update_;  // Node encoder.
  DecimaMlp dag_, glob_;           // Summaries.
  DecimaMlp stage_, exec_;         // Policy heads.
};

// The `decima` (sampled from the run's generator, reseeded by Reset) or `decima-greedy`
// (argmax) scheduler with the weights at `weights` (empty: DefaultDecimaWeightsPath()).
Result<std::unique_ptr<DagScheduler>> MakeDecimaScheduler(const std::string& weights, bool greedy);

}  // namespace schedkit::dag

#endif  // SCHEDKIT_DAG_DECIMA_MODEL_H_
