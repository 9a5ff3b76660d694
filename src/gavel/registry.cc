// Every built-in allocation policy, listed once.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "gavel/lp_policies.h"

namespace schedkit::gavel {
namespace {

using Entry = AllocationPolicyRegistry::Entry;
using Factory = decltype(Entry::factory);

// A policy without options.
template <typename Make>
Factory Fixed(Make make) {
  return [make](ModuleContext&) -> Result<std::unique_ptr<AllocationPolicy>> { return make(); };
}

const OptionSpec kSeedOption{"seed", OptionSpec::Type::kInt, "0",
                             "seed of the random type choice"};

AllocationPolicyRegistry MakeRegistry() {
  AllocationPolicyRegistry r;
  auto add = [&r](std::string name, std::string description, std::vector<OptionSpec> options,
                  Factory factory) {
    Entry e;
    e.name = std::move(name);
    e.description = std::move(description);
    e.options = std::move(options);
    e.factory = std::move(factory);
    if (Status s = r.Register(std::move(e)); !s.ok()) {
      std::fprintf(stderr, "schedkit: %s\n", s.message().c_str());
      std::abort();
    }
  };
  // Which optimum max-min fairness returns: the vertex CLP finds, or the analytic centre of
  // the near-optimal allocations (an interior point, as Gavel's ECOS returns).
  auto max_min = [](bool perf, const char* fallback) {
    return std::make_pair(
        std::vector<OptionSpec>{{"point", OptionSpec::Type::kString, fallback,
                                 "which optimum when it is not unique: centre (inside the "
                                 "optimal face, as an interior-point solver) or vertex"}},
        Factory([perf](ModuleContext& ctx) -> Result<std::unique_ptr<AllocationPolicy>> {
          const std::string& point = ctx.options.String("point");
          if (point != "centre" && point != "vertex") {
            return Status::InvalidArgument("max_min_fairness: option point=" + Quoted(point) +
                                           ": expected centre or vertex");
          }
          return MakeMaxMinFairness(perf, point == "centre");
        }));
  };
  {
    auto [options, factory] = max_min(false, "centre");
    add("max_min_fairness",
        "LAS: max-min of scale-factor-weighted time share (throughputs read as 1)", options,
        factory);
  }
  {
    auto [options, factory] = max_min(true, "vertex");
    add("max_min_fairness_perf",
        "LAS, heterogeneity-aware: max-min of throughput over the equal-split throughput",
        options, factory);
  }
  add("max_min_fairness_water_filling",
      "max_min_fairness, then every job not held by the least share raised, level by level; "
      "an entity's weight split among its jobs not yet held (--entity-weights)",
      {}, Fixed([] { return MakeWaterFilling(false); }));
  add("max_min_fairness_water_filling_perf",
      "max_min_fairness_perf, then every job not held by the least share raised, level by "
      "level; an entity's weight split among its jobs not yet held (--entity-weights)",
      {}, Fixed([] { return MakeWaterFilling(true); }));
  add("max_min_fairness_water_filling_packed",
      "max_min_fairness_water_filling_perf where the problem's pairs may also share GPUs "
      "(--pairs)",
      {}, Fixed([] { return MakeWaterFilling(true, true); }));
  add("max_min_fairness_packed",
      "max_min_fairness_perf where the problem's pairs may also share GPUs (--pairs)", {},
      Fixed([] { return MakeMaxMinFairnessPacked(); }));
  add("finish_time_fairness", "minimise the worst finish-time ratio rho (throughputs read as 1)",
      {}, Fixed([] { return MakeFinishTimeFairness(false); }));
  add("finish_time_fairness_perf", "minimise the worst finish-time ratio rho", {},
      Fixed([] { return MakeFinishTimeFairness(true); }));
  add("finish_time_fairness_packed",
      "finish_time_fairness_perf where the problem's pairs may also share GPUs (--pairs)", {},
      Fixed([] { return MakeFinishTimeFairness(true, true); }));
  add("min_makespan", "smallest T (Gavel's bisection) in which every job can finish", {},
      Fixed([] { return MakeMinMakespan(); }));
  add("min_makespan_packed",
      "min_makespan where the problem's pairs may also share GPUs (--pairs)", {},
      Fixed([] { return MakeMinMakespan(true); }));
  add("max_throughput",
      "maximise the summed throughput (steps/s); a job's deadline (slo_s) is a row, all dropped "
      "if infeasible",
      {},
      Fixed([] { return MakeMaxThroughput(false); }));
  add("max_throughput_packed",
      "max_throughput where the problem's pairs may also share GPUs (--pairs)", {},
      Fixed([] { return MakeMaxThroughput(false, true); }));
  add("min_cost",
      "maximise the summed throughput per dollar (throughput / cost_per_hour); deadlines as "
      "max_throughput",
      {},
      Fixed([] { return MakeMaxThroughput(true); }));
  add("min_cost_packed", "min_cost where the problem's pairs may also share GPUs (--pairs)", {},
      Fixed([] { return MakeMaxThroughput(true, true); }));
  add("fifo", "arrival order, each job on a random type with room (seeded)", {kSeedOption},
      [](ModuleContext& ctx) -> Result<std::unique_ptr<AllocationPolicy>> {
        return MakeFifo(FifoMode::kBase, static_cast<uint64_t>(ctx.options.Int("seed")));
      });
  add("fifo_perf", "arrival order, each job on its fastest type with room", {},
      Fixed([] { return MakeFifo(FifoMode::kPerf, 0); }));
  add("fifo_packed",
      "fifo_perf, then the queue's next jobs join placed jobs whose pair (--pairs) gains most",
      {{"packing_threshold", OptionSpec::Type::kDouble, "1.5",
        "least normalised pair throughput (sum over the two jobs of together / alone) to pack"}},
      [](ModuleContext& ctx) -> Result<std::unique_ptr<AllocationPolicy>> {
        const double threshold = ctx.options.Double("packing_threshold");
        if (!std::isfinite(threshold) || threshold < 0) {
          return Status::InvalidArgument("fifo_packed: option 'packing_threshold' must be >= 0");
        }
        return MakeFifo(FifoMode::kPacked, 0, threshold);
      });
  add("gandiva",
      "Gandiva: random pairs (seeded) from --pairs when jobs outnumber GPUs, equal time split",
      {kSeedOption}, [](ModuleContext& ctx) -> Result<std::unique_ptr<AllocationPolicy>> {
        return MakeGandiva(static_cast<uint64_t>(ctx.options.Int("seed")));
      });
  add("allox",
      "AlloX: oldest jobs matched to (GPU, queue position) at least total completion time; "
      "queue heads run",
      {{"alpha", OptionSpec::Type::kDouble, "0.3",
        "share of waiting jobs considered (at least one per GPU)"}},
      [](ModuleContext& ctx) -> Result<std::unique_ptr<AllocationPolicy>> {
        const double alpha = ctx.options.Double("alpha");
        if (!(alpha > 0 && alpha <= 1)) {
          return Status::InvalidArgument("allox: option 'alpha' must be in (0, 1]");
        }
        return MakeAllox(alpha);
      });
  return r;
}

}  // namespace

const AllocationPolicyRegistry& BuiltinAllocationPolicies() {
  static const AllocationPolicyRegistry* registry = new AllocationPolicyRegistry(MakeRegistry());
  return *registry;
}

bool ReadsPairs(std::string_view name) {
  return name == "gandiva" ||
         (name.size() > 7 && name.substr(name.size() - 7) == "_packed" &&
          BuiltinAllocationPolicies().Find(std::string(name)) != nullptr);
}

bool ReadsEntities(std::string_view name) {
  return name.rfind("max_min_fairness_water_filling", 0) == 0 &&
         BuiltinAllocationPolicies().Find(std::string(name)) != nullptr;
}

bool ReadsSlos(std::string_view name) {
  return name == "max_throughput" || name == "max_throughput_packed" || name == "min_cost" ||
         name == "min_cost_packed";
}

Result<Allocation> Allocate(const std::string& name, const AllocationProblem& problem,
                            const std::map<std::string, std::string>& options) {
  const Entry* entry = BuiltinAllocationPolicies().Find(name);
  if (entry == nullptr) {
    return Status::NotFound("unknown allocation policy " + Quoted(name) + " (known: " +
                            BuiltinAllocationPolicies().Names() + ")");
  }
  Result<OptionValues> values = OptionValues::Parse(name, entry->options, options);
  if (!values.ok()) return values.status();
  ModuleContext ctx{*values};
  Result<std::unique_ptr<AllocationPolicy>> policy = entry->factory(ctx);
  if (!policy.ok()) return policy.status();
  if (Status s = Validate(problem); !s.ok()) return s;
  // Fields a policy does not read are refused, never ignored.
  for (const AllocJob& job : problem.jobs) {
    if (job.entity >= 0 && !ReadsEntities(name)) {
      return Status::InvalidArgument(name + ": job " + Quoted(job.id) +
                                     " has an entity, which only the water-filling policies read");
    }
    if (job.slo_s > 0 && !ReadsSlos(name)) {
      return Status::InvalidArgument(name + ": job " + Quoted(job.id) +
                                     " has a deadline (slo_s), which only max_throughput, "
                                     "min_cost and their _packed variants read");
    }
  }
  return (*policy)->Allocate(problem);
}

}  // namespace schedkit::gavel
