// QSSF (Helios' quasi-shortest-service-first): jobs ordered by estimated service, the
// duration estimate x GPUs, lowest first. Estimates come from a per-job file (`job_id,
// priority` as Lucid ships them, or `job_id,estimate_s` as `schedkit predict` writes).
// A job with no estimate is ordered after every estimated one (then by submit time).
// Without a file every estimate is taken as equal, so jobs go by GPU count (what Lucid's
// QSSF does with jobs it has not estimated yet).
// Non-preemptive by default, with backfill (the clean model; `--compat lucid` has the
// Lucid simulator's head-of-line blocking and lazy priorities, docs/lucid.md).
#include <limits>
#include <memory>
#include <unordered_map>

#include "schedkit/ordering_policy.h"
#include "registry/builtins.h"
#include "schedkit/lucid.h"

namespace schedkit {
namespace {

class QssfOrder final : public CopyableModule<QssfOrder, SchedulingModule> {
 public:
  QssfOrder(std::unordered_map<JobId, double> estimates, bool have_file)
      : estimates_(std::move(estimates)), have_file_(have_file) {}
  std::string_view Name() const override { return "qssf"; }
  PriorityKey Key(const JobStatus& job, Time) const override {
    if (!have_file_) return {static_cast<double>(job.spec->gpus), 0, 0};
    auto it = estimates_.find(job.spec->id);
    if (it == estimates_.end()) return {std::numeric_limits<double>::infinity(), 0, 0};
    return {it->second * job.spec->gpus, 0, 0};
  }

 private:
  std::unordered_map<JobId, double> estimates_;
  bool have_file_;
};

}  // namespace

Status RegisterQssf(Registries* r) {
  return RegisterOrderingPolicy(
      {.name = "qssf",
       .description = "Quasi-shortest service first: estimated duration x GPUs (Helios); "
                      "non-preemptive by default",
       .options = {{.name = "estimates",
                    .type = OptionSpec::Type::kString,
                    .default_value = "",
                    .help = "CSV of per-job estimates: job_id,priority or job_id,estimate_s "
                            "(empty: order by GPU count)"}},
       .default_placement = "best-fit",
       .default_preemption = PreemptionMode::kNever,
       .make = [](const PolicyContext& ctx) -> Result<std::unique_ptr<SchedulingModule>> {
         const std::string& path = ctx.options.String("estimates");
         if (path.empty()) {
           return std::unique_ptr<SchedulingModule>(std::make_unique<QssfOrder>(
               std::unordered_map<JobId, double>{}, /*have_file=*/false));
         }
         auto estimates = lucid::LoadEstimates(path);
         if (!estimates.ok()) return estimates.status();
         return std::unique_ptr<SchedulingModule>(
             std::make_unique<QssfOrder>(std::move(*estimates), /*have_file=*/true));
       }},
      r);
}

}  // namespace schedkit
