// RunVirtualClusters: the clean model over VCs, one independent simulation per VC.
#include <string>
#include <unordered_map>

#include "schedkit/experiment.h"
#include "schedkit/lucid.h"

namespace schedkit::lucid {

Result<VirtualClusterRun> RunVirtualClusters(const Trace& trace,
                                             const std::vector<VirtualCluster>& vcs,
                                             const PolicyRequest& request,
                                             const SimulatorOptions& options, int threads) {
  VirtualClusterRun out;
  std::unordered_map<std::string, size_t> index;
  for (const VirtualCluster& vc : vcs) {
    if (vc.nodes < 1) {
      return Status::InvalidArgument("VC '" + vc.name + "' has no node");
    }
    index.emplace(vc.name, out.per_vc.size());
    VcRun run;
    run.vc = vc.name;
    // Lucid ignores CPUs and memory: nodes get enough for any job on 8 GPUs.
    run.cluster = ClusterSpec::Uniform(1, vc.nodes, kGpusPerNode, 1 << 20, 1 << 20);
    run.cluster.source = "vc " + vc.name;
    run.trace.source = trace.source + " [" + vc.name + "]";
    run.trace.epoch_unix_s = trace.epoch_unix_s;
    out.per_vc.push_back(std::move(run));
  }
  for (const JobSpec& j : trace.jobs) {
    auto it = index.find(j.vc);
    if (it == index.end()) {
      return Status::InvalidArgument("job " + std::to_string(j.id) + ": VC '" + j.vc +
                                     "' is not in the VC configuration");
    }
    out.per_vc[it->second].trace.jobs.push_back(j);  // Stays sorted: a subsequence.
  }
  std::vector<Status> status(out.per_vc.size());
  ParallelFor(out.per_vc.size(), std::max(1, threads), [&](size_t v) {
    VcRun& r = out.per_vc[v];
    auto run = RunSimulation(r.trace, r.cluster, request, options);
    if (!run.ok()) {
      status[v] = run.status();
      return;
    }
    r.run = std::move(*run);
  });
  for (size_t v = 0; v < status.size(); ++v) {
    if (!status[v].ok()) {
      return Status::InvalidArgument("VC " + out.per_vc[v].vc + ": " + status[v].message());
    }
  }
  // Summaries over doubles (the clean model's times need not be whole seconds).
  double jct = 0, queue = 0;
  std::vector<double> queues;
  for (const VcRun& r : out.per_vc) {
    for (const JobRecord& rec : r.run.recorder->jobs()) {
      if (rec.outcome != JobRecord::Outcome::kFinished) continue;
      jct += rec.jct_s();
      queue += rec.queue_s();
      queues.push_back(rec.queue_s());
    }
  }
  out.all.jobs = static_cast<int64_t>(queues.size());
  if (!queues.empty()) {
    const double n = static_cast<double>(queues.size());
    out.all.avg_jct_s = jct / n;
    out.all.avg_queue_s = queue / n;
    out.all.p999_queue_s = QuantileLinear(std::move(queues), 0.999);
  }
  return out;
}

}  // namespace schedkit::lucid
