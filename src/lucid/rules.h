// Internal: Lucid's decision rules, written once for both models that run them: the
// `--compat lucid` engine (compat_sim.cc) and the clean-model `lucid` policy
// (src/policies/lucid_policy.cc). The models differ in how they carry a decision out
// (1-second ticks vs engine events) and in what they do when a table lacks an entry;
// what Lucid decides is here.
#ifndef SCHEDKIT_LUCID_RULES_H_
#define SCHEDKIT_LUCID_RULES_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "lucid/forecast.h"
#include "schedkit/job.h"
#include "schedkit/lucid.h"

namespace schedkit::lucid {

using PairSpeedTable = std::map<std::pair<WorkloadKey, WorkloadKey>, PairSpeeds>;

// The key of single_data.csv and colocate_info.csv rows.
WorkloadKey KeyOf(const JobSpec& job);

// Lucid's queue priority (lower runs first): estimate x GPUs, where a negative estimate
// (the estimator's "unknown") counts as 1000 s.
double Priority(double estimate_s, int gpus);

// A share score above any single_data.csv label (0..2): a job with it never shares.
inline constexpr int kNeverShares = 3;

// What the partner rule reads of a job.
struct Sharer {
  int gpus = 0;
  double gmem_mb = 0;
  int share_score = kNeverShares;
  double priority = 0;
};

// The partner rule: `guest` may share the GPUs of the running, exclusive `host` iff it
// asks for at most one node's GPUs and the same count as the host, their GPU memory
// together stays under one RTX 3090's (24,576 MB), their share scores sum to <= 2, and
// the guest's priority is <= twice the host's.
bool MayShare(const Sharer& guest, const Sharer& host);

// Lucid has no pair measurements for these models and runs their pairs at full speed.
bool IsUnmeasuredModel(const std::string& model);

// The speeds of `guest` and `host` sharing GPUs (speed1 the guest's): {1, 1} if either
// model is unmeasured; else the table's (guest, host) row, else its (host, guest) row
// with the speeds swapped; nullopt if the pair is not in the table.
std::optional<PairSpeeds> LookupPairSpeeds(const PairSpeedTable& table, const JobSpec& guest,
                                           const JobSpec& host);

// The packing switch at `now`: off iff the forecast's mean pred_gpu_job over the next
// rows (ForecastView::Mean, 10 once a previous look at `previous` emptied the table) is
// <= 2; a NaN mean (no row left) leaves it on.
bool PackingAllowed(const ForecastView& forecast, int64_t now, int64_t previous);

}  // namespace schedkit::lucid

#endif  // SCHEDKIT_LUCID_RULES_H_
