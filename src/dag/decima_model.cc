// Decima's forward pass (docs/decima.md). Every formula follows spark-sched-sim's
// DecimaScheduler and DecimaObsWrapper; comments say where the code differs in form only.
#include "dag/decima_model.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

namespace schedkit::dag {
namespace {

constexpr double kNumTasksScale = 200;  // DecimaObsWrapper defaults.
constexpr double kWorkScale = 1e5;
constexpr float kLeakySlope = 0.2f;

class WeightsReader {
 public:
  explicit WeightsReader(std::string file) : file_(std::move(file)) {}

  Status Open() {
    std::ifstream in(file_);
    if (!in) return Status::NotFound(file_ + ": cannot open Decima weights");
    try {
      root_ = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      return Status::InvalidArgument(file_ + ": not valid JSON: " + e.what());
    }
    if (!root_.is_object() || !root_.contains("tensors") || !root_["tensors"].is_object()) {
      return Status::InvalidArgument(file_ +
                                     ": tensors: missing (expected an object of name -> "
                                     "{shape, data})");
    }
    return Status::Ok();
  }

  // Reads `prefix`.0, `prefix`.2, ... (Linear layers between activations) while present.
  // `in` is the first layer's input size; each layer's input is the previous one's output.
  Status ReadMlp(const std::string& prefix, int in, DecimaMlp::Activation act, DecimaMlp* mlp) {
    const nlohmann::json& tensors = root_["tensors"];
    mlp->activation = act;
    for (int i = 0; tensors.contains(prefix + "." + std::to_string(i) + ".weight"); i += 2) {
      const std::string name = prefix + "." + std::to_string(i);
      DecimaMatrix w;
      DecimaMatrix b;
      SCHEDKIT_RETURN_IF_ERROR(ReadTensor(name + ".weight", -1, in, &w));
      SCHEDKIT_RETURN_IF_ERROR(ReadTensor(name + ".bias", static_cast<int>(w.rows()), 0, &b));
      in = static_cast<int>(w.rows());
      mlp->weights.push_back(std::move(w));
      mlp->biases.push_back(b.col(0));
    }
    if (mlp->weights.empty()) return Error(prefix + ".0.weight", "missing");
    return Status::Ok();
  }

  Status Error(const std::string& field, const std::string& what) const {
    return Status::InvalidArgument(file_ + ": tensors." + field + ": " + what);
  }

 private:
  // A weight [rows, cols] (rows -1: any) or, with cols 0, a bias [rows] read as [rows, 1].
  Status ReadTensor(const std::string& name, int rows, int cols, DecimaMatrix* out) {
    const nlohmann::json& tensors = root_["tensors"];
    if (!tensors.contains(name)) return Error(name, "missing");
    const nlohmann::json& t = tensors[name];
    if (!t.is_object() || !t.contains("shape") || !t.contains("data") || !t["shape"].is_array() ||
        !t["data"].is_array()) {
      return Error(name, "expected {\"shape\": [...], \"data\": [...]}");
    }
    std::vector<int64_t> shape;
    for (const auto& d : t["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() <= 0)
        return Error(name + ".shape", "not positive integers");
      shape.push_back(d.get<int64_t>());
    }
    const std::string want = cols == 0
                                 ? "[" + std::to_string(rows) + "]"
                                 : "[" + (rows < 0 ? std::string("*") : std::to_string(rows)) +
                                       ", " + std::to_string(cols) + "]";
    const bool ok = cols == 0
                        ? shape.size() == 1 && shape[0] == rows
                        : shape.size() == 2 && shape[1] == cols && (rows < 0 || shape[0] == rows);
    if (!ok) return Error(name + ".shape", "expected " + want + ", got " + t["shape"].dump());
    const int64_t r = shape[0], c = cols == 0 ? 1 : shape[1];
    if (static_cast<int64_t>(t["data"].size()) != r * c) {
      return Error(name + ".data", "expected " + std::to_string(r * c) + " numbers, got " +
                                       std::to_string(t["data"].size()));
    }
    out->resize(r, c);
    int64_t k = 0;
    for (const auto& v : t["data"]) {
      if (!v.is_number()) return Error(name + ".data[" + std::to_string(k) + "]", "not a number");
      (*out)(k / c, k % c) = v.get<float>();  // Row-major, as PyTorch stores [out, in].
      ++k;
    }
    return Status::Ok();
  }

  std::string file_;
  nlohmann::json root_;
};

// Columns `cols` of `m`, as a new matrix.
DecimaMatrix Columns(const DecimaMatrix& m, const std::vector<int>& cols) {
  return m(Eigen::all, cols);
}

}  // namespace

DecimaMatrix DecimaMlp::Apply(const DecimaMatrix& x, size_t first) const {
  DecimaMatrix y = x;
  for (size_t i = first; i < weights.size(); ++i) {
    y = (weights[i] * y).colwise() + biases[i];
    if (i + 1 < weights.size()) Activate(&y);
  }
  return y;
}

void DecimaMlp::Activate(DecimaMatrix* z) const {
  if (activation == Activation::kLeakyRelu) {
    *z = z->cwiseMax(kLeakySlope * *z);
  } else {
    *z = z->array().tanh().matrix();
  }
}

DecimaMatrix DecimaNodeFeatures(const DagObservation& obs) {
  const int n = static_cast<int>(obs.nodes.size());
  const double execs = obs.num_executors;
  DecimaMatrix x(kDecimaNodeFeatures, n);
  for (int j = 0; j < obs.num_jobs(); ++j) {
    // Computed in double and stored as float32, as the wrapper's NumPy code does.
    const float cap = static_cast<float>(obs.CommitCap(j) / execs);
    const float source = j == obs.source_job ? 1.0f : -1.0f;
    const float supply = static_cast<float>(obs.exec_supply[j] / execs);
    for (int v = obs.job_ptr[j]; v < obs.job_ptr[j + 1]; ++v) {
      const DagNode& node = obs.nodes[v];
      x(0, v) = cap;
      x(1, v) = source;
      x(2, v) = supply;
      x(3, v) = static_cast<float>(node.remaining_tasks / kNumTasksScale);
      x(4, v) = static_cast<float>(node.remaining_tasks * node.recent_duration_ms / kWorkScale);
    }
  }
  return x;
}

Result<DecimaModel> DecimaModel::Load(const std::string& path) {
  using Act = DecimaMlp::Activation;
  WeightsReader r(path);
  SCHEDKIT_RETURN_IF_ERROR(r.Open());
  DecimaModel m;
  const std::string enc = "encoder.";
  SCHEDKIT_RETURN_IF_ERROR(
      r.ReadMlp(enc + "node_encoder.mlp_prep", kDecimaNodeFeatures, Act::kLeakyRelu, &m.prep_));
  const int e = m.prep_.out();
  SCHEDKIT_RETURN_IF_ERROR(r.ReadMlp(enc + "node_encoder.mlp_msg", e, Act::kLeakyRelu, &m.msg_));
  SCHEDKIT_RETURN_IF_ERROR(
      r.ReadMlp(enc + "node_encoder.mlp_update", e, Act::kLeakyRelu, &m.update_));
  SCHEDKIT_RETURN_IF_ERROR(
      r.ReadMlp(enc + "dag_encoder.mlp", kDecimaNodeFeatures + e, Act::kLeakyRelu, &m.dag_));
  SCHEDKIT_RETURN_IF_ERROR(
      r.ReadMlp(enc + "global_encoder.mlp", m.dag_.out(), Act::kLeakyRelu, &m.glob_));
  SCHEDKIT_RETURN_IF_ERROR(r.ReadMlp("stage_policy_network.mlp_score",
                                     kDecimaNodeFeatures + e + m.dag_.out() + m.glob_.out(),
                                     Act::kTanh, &m.stage_));
  SCHEDKIT_RETURN_IF_ERROR(r.ReadMlp("exec_policy_network.mlp_score",
                                     kDecimaDagFeatures + m.dag_.out() + m.glob_.out() + 1,
                                     Act::kTanh, &m.exec_));
  // Outputs that feed fixed-size slots: messages and updates are added to embeddings.
  struct Check {
    const DecimaMlp* mlp;
    int out;
    const char* name;
  };
  for (const Check& c : {Check{&m.msg_, e, "encoder.node_encoder.mlp_msg"},
                         Check{&m.update_, e, "encoder.node_encoder.mlp_update"},
                         Check{&m.stage_, 1, "stage_policy_network.mlp_score"},
                         Check{&m.exec_, 1, "exec_policy_network.mlp_score"}}) {
    if (c.mlp->out() != c.out) {
      return r.Error(std::string(c.name), "last layer has " + std::to_string(c.mlp->out()) +
                                              " outputs, expected " + std::to_string(c.out));
    }
  }
  return m;
}

// h = mlp_update(h0) at nodes without children; elsewhere h = h0 + mlp_update(sum over
// children of mlp_msg(h_child)). spark-sched-sim walks topological generations from the
// deepest; every node's children are final before it is updated there too, so grouping
// nodes by height (longest path to a leaf) gives the same values with batched products.
// With no edge in the whole observation it returns h0 (its `_forward_no_mp`).
void DecimaModel::EncodeNodes(const DagObservation& obs, Evaluation* out) const {
  const int n = static_cast<int>(obs.nodes.size());
  const DecimaMatrix h0 = prep_.Apply(out->x);
  if (obs.edges.empty()) {
    out->h_node = h0;
    return;
  }
  // Children in CSR form; an edge always points to a later node (stage ids are topological
  // and nodes are ordered by job, then stage).
  std::vector<int> child_ptr(n + 1, 0), children(obs.edges.size());
  for (const auto& e : obs.edges) ++child_ptr[e[0] + 1];
  for (int v = 0; v < n; ++v) child_ptr[v + 1] += child_ptr[v];
  std::vector<int> fill(child_ptr.begin(), child_ptr.end() - 1);
  for (const auto& e : obs.edges) {
    if (e[1] <= e[0]) std::abort();  // Invariant of the observation.
    children[fill[e[0]]++] = e[1];
  }
  std::vector<int> height(n, 0);
  int max_height = 0;
  for (int v = n - 1; v >= 0; --v) {
    for (int k = child_ptr[v]; k < child_ptr[v + 1]; ++k) {
      height[v] = std::max(height[v], height[children[k]] + 1);
    }
    max_height = std::max(max_height, height[v]);
  }
  std::vector<std::vector<int>> levels(max_height + 1);
  for (int v = 0; v < n; ++v) levels[height[v]].push_back(v);

  const int e = embed_dim();
  out->h_node.resize(e, n);
  DecimaMatrix msg(e, n);  // mlp_msg(h) of nodes with a parent, once final.
  for (int level = 0; level <= max_height; ++level) {
    const std::vector<int>& nodes = levels[level];
    DecimaMatrix in(e, static_cast<int>(nodes.size()));
    if (level == 0) {
      in = Columns(h0, nodes);
    } else {
      in.setZero();
      for (size_t i = 0; i < nodes.size(); ++i) {
        const int v = nodes[i];
        for (int k = child_ptr[v]; k < child_ptr[v + 1]; ++k) in.col(i) += msg.col(children[k]);
      }
    }
    DecimaMatrix h = update_.Apply(in);
    if (level > 0) h += Columns(h0, nodes);
    out->h_node(Eigen::all, nodes) = h;
    std::vector<int> senders;
    for (int v : nodes) {
      if (obs.nodes[v].active_parents > 0) senders.push_back(v);
    }
    if (!senders.empty()) msg(Eigen::all, senders) = msg_.Apply(Columns(out->h_node, senders));
  }
}

void DecimaModel::Evaluate(const DagObservation& obs, Evaluation* out) const {
  const int n = static_cast<int>(obs.nodes.size());
  const int jobs = obs.num_jobs();
  out->x = DecimaNodeFeatures(obs);
  EncodeNodes(obs, out);

  // h_dag = sum over the job's nodes of mlp([x, h]); h_glob = sum over jobs of mlp(h_dag).
  DecimaMatrix xh(out->x.rows() + out->h_node.rows(), n);
  xh << out->x, out->h_node;
  const DecimaMatrix per_node = dag_.Apply(xh);
  out->h_dag.setZero(per_node.rows(), jobs);
  for (int j = 0; j < jobs; ++j) {
    const int begin = obs.job_ptr[j], count = obs.job_ptr[j + 1] - begin;
    if (count > 0) out->h_dag.col(j) = per_node.middleCols(begin, count).rowwise().sum();
  }
  out->h_glob = glob_.Apply(out->h_dag).rowwise().sum();

  // Stage head over the schedulable stages: [x, h_node, h_dag of its job, h_glob].
  const int s = static_cast<int>(obs.schedulable.size());
  DecimaMatrix in(stage_.in(), s);
  for (int i = 0; i < s; ++i) {
    const int v = obs.schedulable[i];
    in.col(i) << out->x.col(v), out->h_node.col(v), out->h_dag.col(obs.nodes[v].job), out->h_glob;
  }
  out->stage_logits = stage_.Apply(in).row(0).transpose();
}

DecimaVector DecimaModel::ExecLogits(const DagObservation& obs, const Evaluation& eval, int job,
                                     int count) const {
  // Input [first 3 features of the job's first node, h_dag, h_glob, k / N]: only the last entry
  // varies with k, so the first layer is W[:, :-1] s + b + W[:, -1] k / N.
  const int d = exec_.in() - 1;
  DecimaVector summary(d);
  summary << eval.x.col(obs.job_ptr[job]).head(kDecimaDagFeatures), eval.h_dag.col(job),
      eval.h_glob;
  const DecimaVector base = exec_.weights[0].leftCols(d) * summary + exec_.biases[0];
  DecimaVector k_over_n(count);
  const float execs = static_cast<float>(obs.num_executors);
  for (int k = 0; k < count; ++k) k_over_n[k] = static_cast<float>(k) / execs;
  DecimaMatrix z = base.replicate(1, count) + exec_.weights[0].col(d) * k_over_n.transpose();
  if (exec_.weights.size() == 1) return z.row(0).transpose();
  exec_.Activate(&z);
  return exec_.Apply(z, 1).row(0).transpose();
}

}  // namespace schedkit::dag
