// The reference experiment of FGD's artifact: arrivals only, allocated GPU % against arrived
// GPU % (schedkit/sharing.h, docs/fgd.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "sharing/policy.h"
#include "workload/csv.h"

namespace schedkit::sharing {
namespace {

// The pods of one run: the list topped up by uniform draws until the next draw would take
// the GPU request above `ratio` of capacity (or, if the list asks for more than that, pods
// removed at random until it does not), then shuffled.
std::vector<const PodSpec*> ArrivalOrder(const std::vector<PodSpec>& pods, int64_t capacity,
                                         double ratio, PortableRng& rng) {
  std::vector<const PodSpec*> order;
  int64_t requested = 0;
  for (const PodSpec& p : pods) {
    order.push_back(&p);
    requested += p.total_gpu_milli();
  }
  const double target = ratio * static_cast<double>(capacity);
  while (static_cast<double>(requested) > target) {
    const size_t victim = rng.Index(order.size());
    requested -= order[victim]->total_gpu_milli();
    order[victim] = order.back();
    order.pop_back();
  }
  while (true) {
    const PodSpec& p = pods[rng.Index(pods.size())];
    if (static_cast<double>(requested + p.total_gpu_milli()) > target) break;
    order.push_back(&p);
    requested += p.total_gpu_milli();
  }
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Index(i)]);
  return order;
}

class CurveRecorder {
 public:
  CurveRecorder(const SharingState& state, const Fragmentation& frag)
      : state_(state), frag_(frag), capacity_(static_cast<double>(state.total_gpu_milli())) {}

  void Arrived(const PodSpec& pod, bool placed) {
    ++point_.pods_arrived;
    point_.pods_placed += placed;
    arrived_milli_ += pod.total_gpu_milli();
    const double pct = 100.0 * static_cast<double>(arrived_milli_) / capacity_;
    if (pct >= next_whole_pct_) {
      Record(pct);
      next_whole_pct_ = std::floor(pct) + 1;
    }
  }
  std::vector<CurvePoint> Finish() {
    const double pct = 100.0 * static_cast<double>(arrived_milli_) / capacity_;
    if (curve_.empty() || curve_.back().pods_arrived != point_.pods_arrived) Record(pct);
    return std::move(curve_);
  }

 private:
  void Record(double arrived_pct) {
    point_.arrived_gpu_pct = arrived_pct;
    point_.allocated_gpu_pct = 100.0 * static_cast<double>(state_.allocated_gpu_milli()) / capacity_;
    point_.frag_gpu_pct = 100.0 * frag_.total() / capacity_;
    curve_.push_back(point_);
  }

  const SharingState& state_;
  const Fragmentation& frag_;
  double capacity_;
  int64_t arrived_milli_ = 0;
  double next_whole_pct_ = 1;
  CurvePoint point_;
  std::vector<CurvePoint> curve_;
};

FgdRun RunOne(const SharingPolicy& policy, const std::vector<PodSpec>& pods,
              const SharingClusterSpec& cluster, const std::vector<WeightedShape>& workload,
              uint64_t seed, double ratio, TieBreak ties) {
  const auto start = std::chrono::steady_clock::now();
  PortableRng rng(seed);
  SharingState state(&cluster);
  Fragmentation frag(&cluster, workload);
  frag.Reset(state);
  CurveRecorder recorder(state, frag);
  const std::vector<const PodSpec*> arrivals =
      ArrivalOrder(pods, state.total_gpu_milli(), ratio, rng);
  std::vector<int> rank;
  if (ties == TieBreak::kRankedNode) rank = RandomNodeRanks(state.num_nodes(), rng);
  SharingView view{state, frag};
  view.tie_rank = &rank;
  for (const PodSpec* pod : arrivals) {
    const SharingPlacement p = PlacePod(policy, view, *pod, ties, rng);
    if (!p.empty()) {
      state.Allocate(p);
      frag.Update(state, p.node);
    }
    recorder.Arrived(*pod, !p.empty());
  }
  state.CheckInvariants();
  FgdRun run;
  run.policy = std::string(policy.Name());
  run.seed = seed;
  run.curve = recorder.Finish();
  run.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4f", v);
  return buf;
}

}  // namespace

const CurvePoint& FgdRun::At(double arrived_pct) const {
  for (const CurvePoint& p : curve) {
    if (p.arrived_gpu_pct >= arrived_pct) return p;
  }
  return curve.back();
}

Result<std::vector<FgdRun>> RunFgdExperiment(const std::vector<PodSpec>& pods,
                                             const SharingClusterSpec& cluster,
                                             const FgdExperimentConfig& config) {
  if (pods.empty()) return Status::InvalidArgument("fgd: the pod list is empty");
  if (cluster.TotalGpus() == 0) return Status::InvalidArgument("fgd: the cluster has no GPU");
  if (!(config.arrive_ratio > 0) || !(config.coverage > 0 && config.coverage <= 1)) {
    return Status::InvalidArgument("fgd: arrive ratio must be > 0 and coverage in (0, 1]");
  }
  std::vector<std::unique_ptr<SharingPolicy>> policies;
  for (const std::string& name : config.policies) {
    const SharingPolicyRegistry::Entry* e = BuiltinSharingPolicies().Find(name);
    if (e == nullptr) {
      return Status::InvalidArgument("fgd: unknown policy '" + name + "' (known: " +
                                     BuiltinSharingPolicies().Names() + ")");
    }
    ModuleContext ctx;
    Result<std::unique_ptr<SharingPolicy>> made = e->factory(ctx);
    if (!made.ok()) return made.status();
    policies.push_back(std::move(*made));
  }
  const std::vector<WeightedShape> workload = TargetWorkload(pods, config.coverage);
  std::vector<FgdRun> runs;
  for (const auto& policy : policies) {
    for (uint64_t seed : config.seeds) {
      runs.push_back(RunOne(*policy, pods, cluster, workload, seed, config.arrive_ratio,
                            config.ties));
    }
  }
  return runs;
}

Status WriteFgdResults(const std::vector<FgdRun>& runs, const std::vector<double>& report_at,
                       const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IoError(dir + ": cannot create: " + ec.message());
  std::ofstream curve(dir + "/curve.csv");
  if (!curve) return Status::IoError(dir + "/curve.csv: cannot write");
  curve << "policy,seed,pods_arrived,pods_placed,arrived_gpu_pct,allocated_gpu_pct,frag_gpu_pct\n";
  for (const FgdRun& r : runs) {
    for (const CurvePoint& p : r.curve) {
      curve << r.policy << ',' << r.seed << ',' << p.pods_arrived << ',' << p.pods_placed << ','
            << Fixed(p.arrived_gpu_pct) << ',' << Fixed(p.allocated_gpu_pct) << ','
            << Fixed(p.frag_gpu_pct) << '\n';
    }
  }
  std::ofstream summary(dir + "/summary.csv");
  if (!summary) return Status::IoError(dir + "/summary.csv: cannot write");
  summary << "policy,arrived_pct,seeds,allocated_gpu_pct_mean,allocated_gpu_pct_min,"
             "allocated_gpu_pct_max,frag_gpu_pct_mean\n";
  std::vector<std::string> order;  // Policies in run order.
  for (const FgdRun& r : runs) {
    if (std::find(order.begin(), order.end(), r.policy) == order.end()) order.push_back(r.policy);
  }
  for (const std::string& policy : order) {
    for (double at : report_at) {
      double sum = 0, frag = 0, lo = 1e300, hi = -1e300;
      int n = 0;
      for (const FgdRun& r : runs) {
        if (r.policy != policy) continue;
        const CurvePoint& p = r.At(at);
        sum += p.allocated_gpu_pct;
        frag += p.frag_gpu_pct;
        lo = std::min(lo, p.allocated_gpu_pct);
        hi = std::max(hi, p.allocated_gpu_pct);
        ++n;
      }
      summary << policy << ',' << workload::FormatDouble(at) << ',' << n << ',' << Fixed(sum / n)
              << ',' << Fixed(lo) << ',' << Fixed(hi) << ',' << Fixed(frag / n) << '\n';
    }
  }
  if (!curve || !summary) return Status::IoError(dir + ": write failed");
  return Status::Ok();
}

}  // namespace schedkit::sharing
