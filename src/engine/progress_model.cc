#include "engine/progress_model.h"

#include <algorithm>

namespace schedkit {
namespace {

// schedkit's model: a (re)start costs its overhead once, then the job progresses at its
// rate; completion events are exact.
class CleanProgress final : public ProgressRules {
 public:
  double RemainingAt(const Work& w, Time t) const override {
    const Time from = std::max(w.last_update, w.overhead_until);
    return std::max(0.0, w.remaining_s - std::max(0.0, t - from) * w.rate);
  }
  void Book(Work* w, Time now) const override { w->remaining_s = RemainingAt(*w, now); }
  double RemainingAtCompletion(const Work& w, Time now) const override {
    return RemainingAt(w, now);
  }
  Time PredictCompletion(const Work& w, Time now) const override {
    return std::max(now, w.overhead_until) + w.remaining_s / w.rate;
  }
  double ExecutedAt(double executed_s, Time last, Time now) const override {
    return executed_s + (now - last);
  }
  void OnStart(Work* w, Time now) const override { w->overhead_until = now + w->overhead_s; }
  double MemberOverhead(double own_s, double /*group_sum_s*/) const override { return own_s; }
  bool BooksEveryJobAtEveryEvent() const override { return false; }
};

// The Muri simulator: every inter-event interval in which a job runs costs its restart
// overhead, whether or not it was restarted; progress is booked at events only and
// completions are re-predicted, ignoring the overhead, after every decision. The interval
// that ends with a job's own completion costs nothing: the job is simply done.
class MuriIntervalProgress final : public ProgressRules {
 public:
  double RemainingAt(const Work& w, Time /*t*/) const override { return w.remaining_s; }
  void Book(Work* w, Time now) const override {
    w->remaining_s -= std::max(0.0, now - w->last_update - w->overhead_s) * w->rate;
  }
  double RemainingAtCompletion(const Work& /*w*/, Time /*now*/) const override { return 0; }
  Time PredictCompletion(const Work& w, Time now) const override {
    return now + w.remaining_s / w.rate;
  }
  // Muri sums a running job's time at an event as (executed + now) - last_check. The order
  // decides whether a job woken at its Tiresias demotion time (ceil(threshold / GPUs) -
  // executed + then) reaches the threshold or falls an ulp short and needs another event,
  // which costs every running job an interval's overhead (docs/fidelity.md, trace3_pr).
  double ExecutedAt(double executed_s, Time last, Time now) const override {
    return (executed_s + now) - last;
  }
  void OnStart(Work* /*w*/, Time /*now*/) const override {}
  double MemberOverhead(double /*own_s*/, double group_sum_s) const override {
    return group_sum_s;
  }
  bool BooksEveryJobAtEveryEvent() const override { return true; }
};

}  // namespace

std::unique_ptr<ProgressRules> MakeProgressRules(ProgressModel model) {
  switch (model) {
    case ProgressModel::kMuriInterval:
      return std::make_unique<MuriIntervalProgress>();
    case ProgressModel::kClean:
      break;
  }
  return std::make_unique<CleanProgress>();
}

}  // namespace schedkit
