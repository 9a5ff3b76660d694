// `schedkit fgd run` and `schedkit fgd policies`: fractional GPU sharing and the FGD
// reference experiment (docs/fgd.md, docs/cli.md).
#include <cstdio>
#include <algorithm>
#include <memory>

#include "commands.h"
#include "schedkit/sharing.h"
#include "sharing/policy.h"
#include "workload/csv.h"

namespace schedkit::cli {
namespace {

struct FgdArgs {
  std::string pods;
  std::string nodes;
  std::vector<std::string> policies;
  std::string seeds = "42-51";
  double ratio = 1.3;
  double coverage = 0.95;
  std::string ties = "ranked";
  std::string out;
};

// "42-51" (inclusive) or "1,5,9".
Result<std::vector<uint64_t>> ParseSeeds(const std::string& text) {
  std::vector<uint64_t> seeds;
  auto bad = [&] {
    return Status::InvalidArgument("--seeds '" + text + "': expected FIRST-LAST or a,b,c");
  };
  const size_t dash = text.find('-');
  if (dash != std::string::npos) {
    int64_t first = 0, last = 0;
    if (!workload::ParseInt64(text.substr(0, dash), &first) ||
        !workload::ParseInt64(text.substr(dash + 1), &last) || first < 0 || last < first ||
        last - first >= 100000) {
      return bad();
    }
    for (int64_t s = first; s <= last; ++s) seeds.push_back(static_cast<uint64_t>(s));
    return seeds;
  }
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    int64_t s = 0;
    if (!workload::ParseInt64(text.substr(start, comma - start), &s) || s < 0) return bad();
    seeds.push_back(static_cast<uint64_t>(s));
    start = comma + 1;
  }
  return seeds;
}

int Run(const FgdArgs& a) {
  Result<std::vector<uint64_t>> seeds = ParseSeeds(a.seeds);
  if (!seeds.ok()) return Fail(seeds.status().message());
  Result<std::vector<sharing::PodSpec>> pods = sharing::LoadOpenbPods(a.pods);
  if (!pods.ok()) return Fail(pods.status().message());
  Result<sharing::SharingClusterSpec> nodes = sharing::LoadOpenbNodes(a.nodes);
  if (!nodes.ok()) return Fail(nodes.status().message());
  sharing::FgdExperimentConfig config;
  config.policies = a.policies.empty() ? sharing::SharingPolicyNames() : a.policies;
  config.seeds = *seeds;
  config.arrive_ratio = a.ratio;
  config.coverage = a.coverage;
  if (!sharing::ParseTieBreak(a.ties, &config.ties)) {
    return Fail("--ties '" + a.ties + "': expected ranked, first or random");
  }
  Result<std::vector<sharing::FgdRun>> runs = sharing::RunFgdExperiment(*pods, *nodes, config);
  if (!runs.ok()) return Fail(runs.status().message());
  const std::vector<double> report_at = {100, 100 * a.ratio};
  std::printf("%-12s %6s %12s %12s %12s %9s\n", "policy", "seeds", "alloc@100%", "alloc@end",
              "frag@100%", "wall_s");
  for (const std::string& policy : config.policies) {
    double at100 = 0, at_end = 0, frag100 = 0, wall = 0;
    int n = 0;
    for (const sharing::FgdRun& r : *runs) {
      if (r.policy != policy) continue;
      at100 += r.At(100).allocated_gpu_pct;
      at_end += r.curve.back().allocated_gpu_pct;
      frag100 += r.At(100).frag_gpu_pct;
      wall += r.wall_seconds;
      ++n;
    }
    std::printf("%-12s %6d %12.2f %12.2f %12.2f %9.2f\n", policy.c_str(), n, at100 / n,
                at_end / n, frag100 / n, wall);
  }
  if (!a.out.empty()) {
    const Status st = sharing::WriteFgdResults(*runs, report_at, a.out);
    if (!st.ok()) return Fail(st.message());
    std::printf("wrote %s/curve.csv and %s/summary.csv\n", a.out.c_str(), a.out.c_str());
  }
  return 0;
}

int ListPolicies() {
  for (const auto& e : sharing::BuiltinSharingPolicies().entries()) {
    std::printf("%-12s %s\n", e.name.c_str(), e.description.c_str());
  }
  return 0;
}

}  // namespace

void AddFgdCommands(CLI::App& app, std::vector<Subcommand>& out) {
  CLI::App* fgd = app.add_subcommand("fgd", "Fractional GPU sharing: the FGD reference experiment");
  fgd->require_subcommand(1);
  auto args = std::make_shared<FgdArgs>();
  CLI::App* run = fgd->add_subcommand("run", "Place openb pods until a share of GPU capacity has arrived");
  run->add_option("--pods", args->pods, "openb pod list CSV")->required();
  run->add_option("--nodes", args->nodes, "openb node list CSV")->required();
  run->add_option("--policy", args->policies, "policy, repeatable (default: all)");
  run->add_option("--seeds", args->seeds, "FIRST-LAST or a,b,c (default 42-51)");
  run->add_option("--ratio", args->ratio, "arrive until this share of GPU capacity (default 1.3)");
  run->add_option("--coverage", args->coverage,
                  "share of pods the target workload's shapes cover (default 0.95)");
  run->add_option("--ties", args->ties,
                  "which of equally scored nodes wins: ranked (first in a random node order "
                  "drawn per run, the reference's rule; default), first (node-list order) or "
                  "random (per placement)");
  run->add_option("--out", args->out, "folder for curve.csv and summary.csv");
  out.push_back({run, [args] { return Run(*args); }});
  CLI::App* policies = fgd->add_subcommand("policies", "List the GPU-sharing placement policies");
  out.push_back({policies, [] { return ListPolicies(); }});
}

}  // namespace schedkit::cli
