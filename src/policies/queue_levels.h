// Tiresias' multi-level queues by attained GPU-time, shared by the policies that use
// them (tiresias: FIFO within a level; tiresias-gittins: Gittins index within a level).
// A job is in level k = the number of thresholds its attained GPU-seconds have reached.
#ifndef SCHEDKIT_POLICIES_QUEUE_LEVELS_H_
#define SCHEDKIT_POLICIES_QUEUE_LEVELS_H_

#include <string>
#include <utility>
#include <vector>

#include "schedkit/registry.h"
#include "schedkit/view.h"

namespace schedkit {

class QueueLevels {
 public:
  // The `thresholds` option every multi-level policy declares.
  static OptionSpec Option() {
    return {"thresholds", OptionSpec::Type::kDoubleList, "3250:7200",
            "queue thresholds in GPU-seconds, ascending (Muri's dlas-gpu: 3250:7200)"};
  }

  // Fails, naming `policy` and the option, unless the thresholds are positive and
  // strictly ascending. `exact`: a threshold is reached at attained >= threshold exactly,
  // as Muri compares; otherwise the few ulps by which a job woken at its computed crossing
  // time may fall short are forgiven.
  static Result<QueueLevels> Make(const std::string& policy, std::vector<double> thresholds,
                                  bool exact) {
    for (size_t i = 0; i < thresholds.size(); ++i) {
      if (thresholds[i] <= 0 || (i > 0 && thresholds[i] <= thresholds[i - 1])) {
        return Status::InvalidArgument(
            policy + ": option 'thresholds' must be positive and strictly ascending");
      }
    }
    return QueueLevels(std::move(thresholds), exact);
  }

  size_t LevelOf(double attained_gpu_s) const {
    const double slack = exact_ ? 0 : 1e-9;
    size_t q = 0;
    while (q < thresholds_.size() && attained_gpu_s >= thresholds_[q] * (1 - slack)) ++q;
    return q;
  }
  bool IsLast(size_t level) const { return level >= thresholds_.size(); }
  // The GPU-seconds at which level `level` ends. REQUIRES: !IsLast(level).
  double UpperBound(size_t level) const { return thresholds_[level]; }
  // Where level `level` starts (0 for level 0).
  double LowerBound(size_t level) const { return level == 0 ? 0 : thresholds_[level - 1]; }

  // When running `job` reaches the next threshold at its current rate (attained GPU-time
  // grows by its GPU count per second), or kNever in the last level.
  Time NextDemotion(const JobStatus& job, Time now) const {
    const size_t q = LevelOf(job.attained_gpu_s);
    if (IsLast(q)) return kNever;
    return now + (thresholds_[q] - job.attained_gpu_s) / job.spec->gpus;
  }

 private:
  QueueLevels(std::vector<double> thresholds, bool exact)
      : thresholds_(std::move(thresholds)), exact_(exact) {}

  std::vector<double> thresholds_;  // GPU-seconds, strictly ascending.
  bool exact_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_POLICIES_QUEUE_LEVELS_H_
