// `schedkit gavel allocate` and `schedkit gavel policies`: Gavel's allocation policies over
// (job, GPU type) on an explicit problem (docs/gavel.md).
#include <algorithm>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "schedkit/gavel.h"
#include "workload/csv.h"

namespace schedkit::cli {
namespace {

struct GavelArgs {
  std::string policy;
  std::string jobs;
  std::string cluster;
  std::string pairs;
  std::string entity_weights;
  std::vector<std::string> opts;
};

// The allocation as CSV (job,type,fraction; every pair, shortest round-trip numbers), then
// one comment line with the objective and the LPs solved.
int Allocate(const GavelArgs& a) {
  Result<std::map<std::string, std::string>> opts = ParseOpts(a.opts);
  if (!opts.ok()) return Fail(opts.status().message());
  std::vector<gavel::Entity> entities;
  if (!a.entity_weights.empty()) {
    if (!gavel::ReadsEntities(a.policy)) {
      return Fail("--entity-weights is read by the water-filling policies only, not " + a.policy);
    }
    Result<std::vector<gavel::Entity>> parsed = gavel::ParseEntityWeights(a.entity_weights);
    if (!parsed.ok()) return Fail("--entity-weights: " + parsed.status().message());
    entities = std::move(parsed).value();
  }
  Result<gavel::AllocationProblem> problem =
      gavel::LoadAllocationProblem(a.jobs, a.cluster, entities);
  if (!problem.ok()) return Fail(problem.status().message());
  if (!a.pairs.empty()) {
    if (!gavel::ReadsPairs(a.policy)) {
      return Fail("--pairs is read by the _packed policies and gandiva only, not " + a.policy);
    }
    if (Status s = gavel::LoadJobPairs(a.pairs, &*problem); !s.ok()) return Fail(s.message());
  }
  Result<gavel::Allocation> alloc = gavel::Allocate(a.policy, *problem, *opts);
  if (!alloc.ok()) return Fail(alloc.status().message());
  std::string out = "job,type,fraction\n";
  for (size_t j = 0; j < problem->jobs.size(); ++j) {
    for (size_t k = 0; k < problem->types.size(); ++k) {
      out += workload::CsvField(problem->jobs[j].id) + "," +
             workload::CsvField(problem->types[k].name) + "," +
             workload::FormatDouble(alloc->x[j][k]) + "\n";
    }
  }
  // Co-located pairs (the _packed policies, gandiva): "a+b" in the pairs file's order.
  for (size_t i = 0; i < alloc->pair_x.size(); ++i) {
    const gavel::JobPair& pair = problem->pairs[i];
    out += workload::CsvField(problem->jobs[pair.a].id + "+" + problem->jobs[pair.b].id) + "," +
           workload::CsvField(problem->types[pair.type].name) + "," +
           workload::FormatDouble(alloc->pair_x[i]) + "\n";
  }
  out += "# objective=" + workload::FormatDouble(alloc->objective) +
         " lp_solves=" + std::to_string(alloc->lp_solves);
  // With deadlines: whether the allocation keeps them (Gavel drops them all when they cannot
  // all be met).
  if (std::any_of(problem->jobs.begin(), problem->jobs.end(),
                  [](const gavel::AllocJob& j) { return j.slo_s > 0; })) {
    out += alloc->slos_dropped ? " slos=dropped" : " slos=kept";
  }
  out += "\n";
  std::fputs(out.c_str(), stdout);
  return 0;
}

int ListPolicies() {
  int width = 0;  // Names in one column.
  for (const auto& e : gavel::BuiltinAllocationPolicies().entries()) {
    width = std::max(width, static_cast<int>(e.name.size()));
  }
  for (const auto& e : gavel::BuiltinAllocationPolicies().entries()) {
    std::printf("%-*s %s\n", width, e.name.c_str(), e.description.c_str());
  }
  return 0;
}

}  // namespace

void AddGavelCommands(CLI::App& app, std::vector<Subcommand>& out) {
  CLI::App* gavel = app.add_subcommand("gavel", "Gavel's heterogeneity-aware allocation policies");
  gavel->require_subcommand(1);
  auto args = std::make_shared<GavelArgs>();
  CLI::App* allocate =
      gavel->add_subcommand("allocate", "Print a policy's allocation (job,type,fraction) as CSV");
  allocate->add_option("--policy", args->policy, "allocation policy (schedkit gavel policies)")
      ->required();
  allocate->add_option("--jobs", args->jobs, "jobs CSV (docs/gavel.md)")->required();
  allocate->add_option("--cluster", args->cluster, "GPU types CSV (docs/gavel.md)")->required();
  allocate->add_option("--pairs", args->pairs,
                       "co-located pair throughputs CSV (the _packed policies, gandiva)");
  allocate->add_option("--entity-weights", args->entity_weights,
                       "weights of the jobs file's entities, name=weight[:fifo],... "
                       "(water filling)");
  allocate->add_option("--opt", args->opts, "policy option key=value, repeatable");
  out.push_back({allocate, [args] { return Allocate(*args); }});
  CLI::App* policies = gavel->add_subcommand("policies", "List the allocation policies");
  out.push_back({policies, [] { return ListPolicies(); }});
}

}  // namespace schedkit::cli
