// Lucid in the clean model (docs/lucid.md): jobs ordered by estimate x GPUs; a packing
// switch driven by the throughput forecast; when packing is on, a job of <= 8 GPUs shares
// the GPUs of a running exclusive job with the same GPU count whose memory, share score
// and priority allow it, both at their measured pair speeds; no preemption.
//
// Differences from `--compat lucid` (the Lucid simulator), by design of the clean model:
// sharing is an engine co-location group, so the host restarts into the group and back
// out of it when its partner ends (paying the restart overhead the run is configured
// with); whichever member remains returns to full speed; the switch is re-read whenever
// the policy decides (and at every forecast row while jobs wait), not on a 100-s grid;
// unmeasured pairs do not share. Lucid's profiler runs before the VC simulations
// (lucid::RunVirtualClusters reads the options `profiler` and `profiler_donors`).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lucid/forecast.h"
#include "lucid/rules.h"
#include "lucid/venus.h"
#include "registry/builtins.h"
#include "mechanisms/job_queue.h"
#include "schedkit/lucid.h"
#include "schedkit/registry.h"

namespace schedkit {
namespace {

struct LucidTables {
  std::unordered_map<JobId, double> estimates;
  bool have_estimates = false;
  std::map<lucid::WorkloadKey, int> share_scores;
  lucid::PairSpeedTable speeds;
  lucid::ThroughputForecast forecast;
  bool have_forecast = false;
};

class LucidPolicy final : public ClonablePolicy<LucidPolicy> {
 public:
  LucidPolicy(std::shared_ptr<const LucidTables> tables, std::unique_ptr<PlacementModule> placement)
      : t_(std::move(tables)), placement_(std::move(placement)) {}

  std::string_view Name() const override { return "lucid"; }
  Status ModulesCloned() const override { return placement_.Check("placement"); }

  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    std::vector<JobId> restarted;
    for (JobId id : events.finished) {
      pending_.Remove(id);  // Cancelled while it waited (the runtime).
      StopRunning(view, id, out, &restarted);
    }
    for (JobId id : events.interrupted) {  // Its node failed: it waits again.
      StopRunning(view, id, out, &restarted);
      Enqueue(view.Spec(id));
    }
    for (JobId id : events.arrived) Enqueue(view.Spec(id));
    ClusterState free = view.Resources();
    const bool packing = PackingOn(view.Now());
    std::vector<JobId> started;
    for (const QueuedJob& entry : pending_) {
      const JobId id = entry.id;
      const JobSpec& spec = view.Spec(id);
      lucid::PairSpeeds speeds;
      const JobId host = packing ? PickHost(view, spec, restarted, &speeds) : -1;
      if (host >= 0) {
        const Placement& shared = *view.Status(host).placement;
        const int64_t group = next_group_++;
        out->start.push_back(
            {.job = host, .placement = shared, .rate = speeds.speed2, .group = group});
        out->start.push_back(
            {.job = id, .placement = shared, .rate = speeds.speed1, .group = group});
        partner_[host] = id;
        partner_[id] = host;
        restarted.push_back(host);
      } else {
        Placement p = placement_->Place(spec, free);
        if (p.shares.empty()) {
          if (!packing) break;  // Strict priority order: head-of-line blocking.
          continue;
        }
        free.Allocate(p);
        out->start.push_back({.job = id, .placement = std::move(p), .rate = 1.0, .group = 0});
      }
      started.push_back(id);
      restarted.push_back(id);
      running_.push_back(id);
    }
    for (JobId id : started) pending_.Remove(id);
    // The switch can flip when a forecast row passes.
    if (!pending_.empty() && t_->have_forecast) {
      const auto& times = t_->forecast.time_s;
      auto next = std::upper_bound(times.begin(), times.end(),
                                   static_cast<int64_t>(std::floor(view.Now())));
      if (next != times.end()) out->wake_at = static_cast<Time>(*next);
    }
  }

 private:
  void Enqueue(const JobSpec& spec) { pending_.Insert({{Priority(spec), 0, 0}, spec.submit_s, spec.id}); }

  // `id` no longer runs; if it shared its GPUs, the partner leaves the group and runs
  // alone at full speed (restarted, listed in `restarted`).
  void StopRunning(const ClusterView& view, JobId id, Decisions* out, std::vector<JobId>* restarted) {
    std::erase(running_, id);
    auto it = partner_.find(id);
    if (it == partner_.end()) return;
    const JobId other = it->second;
    partner_.erase(it);
    partner_.erase(other);
    const JobStatus s = view.Status(other);
    if (s.running()) {
      out->start.push_back({.job = other, .placement = *s.placement, .rate = 1.0, .group = 0});
      restarted->push_back(other);
    }
  }
  double Priority(const JobSpec& spec) const {
    if (!t_->have_estimates) return spec.gpus;
    auto it = t_->estimates.find(spec.id);
    if (it == t_->estimates.end()) return std::numeric_limits<double>::infinity();
    return lucid::Priority(it->second, spec.gpus);
  }

  lucid::Sharer AsSharer(const JobSpec& spec) const {
    auto score = t_->share_scores.find(lucid::KeyOf(spec));
    return {.gpus = spec.gpus,
            .gmem_mb = spec.profile.gmem_mb,
            .share_score = score == t_->share_scores.end() ? lucid::kNeverShares : score->second,
            .priority = Priority(spec)};
  }

  // Re-read at every decision rather than on Lucid's 100-s grid.
  bool PackingOn(Time now) const {
    if (!t_->have_forecast) return true;
    return lucid::PackingAllowed(lucid::ForecastView(t_->forecast),
                                 static_cast<int64_t>(std::floor(now)), -1);
  }

  // The first running job in start order that is alone on its GPUs (not in a group, not
  // restarted by this decision), that the partner rule lets `job` share and whose pair
  // speeds are measured (unmeasured pairs do not share here).
  JobId PickHost(const ClusterView& view, const JobSpec& job, const std::vector<JobId>& busy,
                 lucid::PairSpeeds* speeds) const {
    const lucid::Sharer guest = AsSharer(job);
    for (JobId r : running_) {
      if (partner_.count(r) || std::find(busy.begin(), busy.end(), r) != busy.end()) continue;
      const JobSpec& other = view.Spec(r);
      if (!lucid::MayShare(guest, AsSharer(other))) continue;
      if (auto s = lucid::LookupPairSpeeds(t_->speeds, job, other)) {
        *speeds = *s;
        return r;
      }
    }
    return -1;
  }

  // Read-only after construction: shared by the policy's clones.
  std::shared_ptr<const LucidTables> t_;
  ModulePtr<PlacementModule> placement_;
  JobQueue pending_;            // Keyed by Priority().
  std::vector<JobId> running_;  // In start order.
  std::unordered_map<JobId, JobId> partner_;
  int64_t next_group_ = 1;
};

}  // namespace

Status RegisterLucid(Registries* r) {
  PolicyRegistry::Entry e;
  e.name = "lucid";
  e.description =
      "Lucid (ASPLOS'23): estimate x GPUs order, forecast-driven packing, co-location at measured "
      "pair speeds; no preemption (the simulator's exact semantics: --compat lucid)";
  e.default_placement = "best-fit";
  e.default_admission = "";
  e.takes_admission = false;
  e.options = {
      {.name = "estimates",
       .type = OptionSpec::Type::kString,
       .default_value = "",
       .help = "per-job estimates job_id,priority|estimate_s (empty: order by GPU count)"},
      {.name = "share_scores",
       .type = OptionSpec::Type::kString,
       .default_value = "",
       .help = "single_data.csv share scores (empty: no job shares)"},
      {.name = "colocate",
       .type = OptionSpec::Type::kString,
       .default_value = "",
       .help = "colocate_info.csv pair speeds (empty: only unmeasured models share, at speed 1)"},
      {.name = "forecast",
       .type = OptionSpec::Type::kString,
       .default_value = "",
       .help = "throughput forecast CSV, first row = t 0 (empty: packing always on)"},
      {.name = "profiler",
       .type = OptionSpec::Type::kBool,
       .default_value = "true",
       .help = "run Lucid's profiling pool first (runs over virtual clusters, --vc-config)"},
      {.name = "profiler_donors",
       .type = OptionSpec::Type::kString,
       .default_value =
           std::string(lucid::kVenusProfilerDonors[0]) + "," + lucid::kVenusProfilerDonors[1],
       .help = "VCs that each give the profiling pool one node"}};
  e.factory = [](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
    if (!ctx.placement) return Status::InvalidArgument("lucid: no placement module");
    auto t = std::make_shared<LucidTables>();
    if (const std::string& p = ctx.options.String("estimates"); !p.empty()) {
      auto v = lucid::LoadEstimates(p);
      if (!v.ok()) return v.status();
      t->estimates = std::move(*v);
      t->have_estimates = true;
    }
    if (const std::string& p = ctx.options.String("share_scores"); !p.empty()) {
      auto v = lucid::LoadShareScores(p);
      if (!v.ok()) return v.status();
      t->share_scores = std::move(*v);
    }
    if (const std::string& p = ctx.options.String("colocate"); !p.empty()) {
      auto v = lucid::LoadColocateSpeeds(p);
      if (!v.ok()) return v.status();
      t->speeds = std::move(*v);
    }
    if (const std::string& p = ctx.options.String("forecast"); !p.empty()) {
      auto v = lucid::LoadThroughputForecast(p);
      if (!v.ok()) return v.status();
      t->forecast = std::move(*v);
      t->have_forecast = true;
    }
    return std::unique_ptr<Policy>(
        std::make_unique<LucidPolicy>(std::move(t), std::move(ctx.placement)));
  };
  return r->policies.Register(std::move(e));
}

}  // namespace schedkit
