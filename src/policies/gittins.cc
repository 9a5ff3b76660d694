// Gittins-index scheduling (Tiresias' `gittins` and `dlas-gpu-gittins`). A job's size is
// unknown, but sizes are drawn from a known distribution of GPU-seconds; a job's priority
// is its Gittins index at the GPU-seconds it has attained (policies/gittins_index.h):
// higher index, higher priority, so the key is -index.
//  - gittins: the index alone. A running job is re-examined each time its attained
//    service crosses a multiple of `delta`, where its index can change.
//  - tiresias-gittins: Tiresias' multi-level queues (policies/queue_levels.h), ordered by
//    the index within a level. Unlike tiresias (FIFO, running jobs first), a pending job
//    whose index beats a running job's of the same level preempts it, as in the Tiresias
//    simulator, which sorts each queue, running jobs included, by the index.
#include <algorithm>
#include <string>

#include "policies/gittins_index.h"
#include "schedkit/ordering_policy.h"
#include "policies/queue_levels.h"
#include "registry/builtins.h"
#include "schedkit/trace.h"
#include "workload/duration_distribution.h"

namespace schedkit {
namespace {

constexpr const char* kDefaultDistribution = "tiresias/yarn-gput1000.csv";  // Under DataDir().

std::vector<OptionSpec> GittinsOptions() {
  return {{"distribution", OptionSpec::Type::kString, "",
           std::string("CSV of job sizes, a 'duration' column in GPU-seconds (empty: ") +
               "<data dir>/" + kDefaultDistribution + ", Tiresias' yarn-gput1000)"},
          {"delta", OptionSpec::Type::kDouble, "3250",
           "service quantum in GPU-seconds: the index's horizon and how often a running job's "
           "index is re-evaluated"}};
}

// Loads the distribution named by the options and builds the index.
Result<GittinsIndex> MakeIndex(const std::string& policy, const OptionValues& options) {
  const double delta = options.Double("delta");
  if (!(delta > 0)) {
    return Status::InvalidArgument(policy + ": option 'delta' must be > 0 GPU-seconds");
  }
  std::string path = options.String("distribution");
  if (path.empty()) path = DataDir() + "/" + kDefaultDistribution;
  Result<std::vector<double>> samples = workload::LoadDurationSamples(path);
  if (!samples.ok()) {
    Status st = samples.status();
    const std::string msg = policy + ": option 'distribution': " + st.message();
    return st.code() == Status::Code::kNotFound  ? Status::NotFound(msg)
           : st.code() == Status::Code::kIoError ? Status::IoError(msg)
                                                 : Status::InvalidArgument(msg);
  }
  return GittinsIndex(std::move(samples).value(), delta);
}

// An index of 0 keys as +0, never -0.
double IndexKey(const GittinsIndex& index, const JobStatus& job) {
  const double g = index.Index(job.attained_gpu_s);
  return g > 0 ? -g : 0.0;
}

Time NextIndexChange(const GittinsIndex& index, const JobStatus& job, Time now) {
  const double service = index.ServiceToNextChange(job.attained_gpu_s);
  return service == kNever ? kNever : now + service / job.spec->gpus;
}

class GittinsOrder final : public CopyableModule<GittinsOrder, SchedulingModule> {
 public:
  explicit GittinsOrder(GittinsIndex index) : index_(std::move(index)) {}
  std::string_view Name() const override { return "gittins"; }
  PriorityKey Key(const JobStatus& job, Time) const override {
    return {IndexKey(index_, job), 0, 0};
  }
  Time NextKeyChange(const JobStatus& job, Time now) const override {
    return NextIndexChange(index_, job, now);
  }

 private:
  GittinsIndex index_;
};

class TiresiasGittinsOrder final : public CopyableModule<TiresiasGittinsOrder, SchedulingModule> {
 public:
  TiresiasGittinsOrder(QueueLevels levels, GittinsIndex index)
      : levels_(std::move(levels)), index_(std::move(index)) {}
  std::string_view Name() const override { return "tiresias-gittins"; }
  PriorityKey Key(const JobStatus& job, Time) const override {
    return {static_cast<double>(levels_.LevelOf(job.attained_gpu_s)), IndexKey(index_, job), 0};
  }
  Time NextKeyChange(const JobStatus& job, Time now) const override {
    return std::min(levels_.NextDemotion(job, now), NextIndexChange(index_, job, now));
  }

 private:
  QueueLevels levels_;
  GittinsIndex index_;
};

}  // namespace

Status RegisterGittins(Registries* r) {
  return RegisterOrderingPolicy(
      {.name = "gittins",
       .description = "Highest Gittins index first, over a job-size distribution (Tiresias' "
                      "gittins); preemptive",
       .options = GittinsOptions(),
       .default_placement = "gpu-count",
       .default_preemption = PreemptionMode::kPriority,
       .make = [](const PolicyContext& ctx) -> Result<std::unique_ptr<SchedulingModule>> {
         Result<GittinsIndex> index = MakeIndex("gittins", ctx.options);
         if (!index.ok()) return index.status();
         return std::unique_ptr<SchedulingModule>(
             std::make_unique<GittinsOrder>(std::move(index).value()));
       }},
      r);
}

Status RegisterTiresiasGittins(Registries* r) {
  std::vector<OptionSpec> options = {QueueLevels::Option()};
  for (OptionSpec& o : GittinsOptions()) options.push_back(std::move(o));
  return RegisterOrderingPolicy(
      {.name = "tiresias-gittins",
       .description = "Tiresias' multi-level queues, Gittins index within a queue "
                      "(dlas-gpu-gittins); preemptive",
       .options = std::move(options),
       .default_placement = "gpu-count",
       .default_preemption = PreemptionMode::kPriority,
       .make = [](const PolicyContext& ctx) -> Result<std::unique_ptr<SchedulingModule>> {
         // No Muri reference exists for this policy: levels use the clean model's slack
         // under every profile.
         Result<QueueLevels> levels = QueueLevels::Make(
             "tiresias-gittins", ctx.options.DoubleList("thresholds"), /*exact=*/false);
         if (!levels.ok()) return levels.status();
         Result<GittinsIndex> index = MakeIndex("tiresias-gittins", ctx.options);
         if (!index.ok()) return index.status();
         return std::unique_ptr<SchedulingModule>(std::make_unique<TiresiasGittinsOrder>(
             std::move(levels).value(), std::move(index).value()));
       }},
      r);
}

}  // namespace schedkit
