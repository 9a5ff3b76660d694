// dynamic: Blox's dynamic policy switching. Every `round_s` seconds (rounds fall on
// multiples of round_s; the first at the first decision) each candidate combination of
// scheduling policy x admission module x placement module is simulated ahead from the
// view (SimulateFrom: the jobs now in the system, the arrivals of this point included,
// the candidate fresh, no new arrivals), and the one with the lowest predicted average JCT
// runs until the next round; ties go to the earliest candidate in option order, as Blox's
// min() over its ordered candidates (tie=order), or first to the candidate that ends jobs
// earlier (tie=earlier-ends, struct Score). With forecast=recent the look-ahead also sees arrivals:
// the jobs that arrived in the last forecast_window_s seconds, replayed that much later
// (forecast_windows times), and the average is over them too; with forecast=horizon,
// replayed until the no-arrival look-ahead's jobs have ended. A switch creates the new candidate fresh; it adopts
// the running jobs and hears of the pending ones as arrivals. docs/policies.md
// ("dynamic") has the definitions.
#include <algorithm>
#include <atomic>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "registry/builtins.h"
#include "schedkit/run.h"
#include "schedkit/simulator.h"

namespace schedkit {
namespace {

struct Candidate {
  std::string scheduling, admission, placement;  // As the options list them.
  PolicyRequest request;
};

// One evaluated round, a row of switches.csv.
struct Round {
  Time time_s = 0;
  size_t jobs = 0;
  size_t chosen = 0;
  double predicted_avg_jct_s = 0;
  bool switched = false;
};

std::vector<std::string> SplitList(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// What a look-ahead predicts for one candidate. `avg_jct_s`: the average over the jobs
// in it (the jobs in the system and the forecast arrivals) of end - submit; +inf if a job
// does not finish. With rounds (the look-ahead engine's decision rounds) a job's end is
// the end of the round it finishes in, where the engine learns of it, as Blox's look-ahead
// counts it. `ends`: those ends in increasing order (tie=earlier-ends only). `tolerance_s`:
// how far apart two averages (or two ends) whose exact values are equal can come out in
// floating point: each end carries a few roundings of its magnitude from the engine's
// arithmetic, each end - submit one more, the running sum one per job, the division one:
// at most (jobs + 4) roundings of the largest end, each half an ulp, counted here as a
// whole DBL_EPSILON (twice that) so that two scores' errors fit in it together. A real
// difference between schedules is a job ending at least a round (or an event) apart, many
// orders of magnitude above it (about 1e-7 s for 1,000 jobs ending near 1e6 s).
struct Score {
  double avg_jct_s = std::numeric_limits<double>::infinity();
  std::vector<Time> ends;
  double tolerance_s = 0;
  Time last_end_s = kNever;  // The latest of the ends; kNever if a job does not finish.
};

Score ScoreOf(const std::vector<PredictedFinish>& finish, double round_s, bool keep_ends) {
  Score score;
  double sum = 0;
  double largest = 0;
  if (keep_ends) score.ends.reserve(finish.size());
  for (const PredictedFinish& f : finish) {
    if (f.finish_s == kNever) return score;
    const Time end = round_s > 0 ? std::ceil(f.finish_s / round_s) * round_s : f.finish_s;
    sum += end - f.submit_s;
    largest = std::max(largest, std::fabs(end));
    if (keep_ends) score.ends.push_back(end);
  }
  std::sort(score.ends.begin(), score.ends.end());
  score.last_end_s = largest;
  score.avg_jct_s = sum / static_cast<double>(finish.size());
  score.tolerance_s = static_cast<double>(finish.size() + 4) * DBL_EPSILON * largest;
  return score;
}

// Whether `a` is a better prediction than `b` under tie=earlier-ends: a lower average, or
// an average equal within the rounding tolerance and, at the first place where the sorted
// ends differ (beyond the tolerance), an earlier end; that is, at the first time the
// number of jobs still in the look-ahead differs, fewer jobs left. Equal averages mean equal
// sums of JCTs, the area under that count: the rule only decides how the same area is laid
// out, and prefers it early, where the next (unmodelled) arrival is likeliest to meet it
// (docs/blox.md, "Breaking the ties"). Neither better: a tie, left to the candidate order.
bool EndsEarlier(const Score& a, const Score& b) {
  const double tolerance = std::max(a.tolerance_s, b.tolerance_s);
  if (!(std::fabs(a.avg_jct_s - b.avg_jct_s) <= tolerance)) return a.avg_jct_s < b.avg_jct_s;
  const size_t n = std::min(a.ends.size(), b.ends.size());
  for (size_t i = 0; i < n; ++i) {
    if (std::fabs(a.ends[i] - b.ends[i]) > tolerance) return a.ends[i] < b.ends[i];
  }
  return false;
}

// The arrivals the look-ahead sees (option `forecast`). kRecent: the jobs that arrived in
// the last `window_s` seconds, (now - window_s, now], each replayed at its submit time +
// k x window_s for k = 1..windows (the window's arrivals repeat with period window_s),
// with its own size and solo runtime. kHorizon: the same window's arrivals, replayed for
// every k with submit time + k x window_s before the horizon: the earliest time at which
// some candidate's no-arrival look-ahead has ended every job now in the system (set by the
// state, the same for every candidate, computed once per round; none if no candidate ends
// them all); `windows` is 1 (other values are refused).
struct Forecast {
  enum class Kind { kNone, kRecent, kHorizon };
  Kind kind = Kind::kNone;
  double window_s = 0;
  int windows = 1;
};

// How equal predicted averages are decided (option `tie`). kOrder: the earliest candidate
// in option order (Blox's). kEarlierEnds: EndsEarlier, then the order.
enum class TieRule { kOrder, kEarlierEnds };

class DynamicPolicy final : public Policy {
 public:
  DynamicPolicy(std::vector<Candidate> candidates, PolicyKnobs knobs, double round_s,
                int threads, SimulatorOptions lookahead, Forecast forecast, TieRule tie)
      : candidates_(std::move(candidates)),
        knobs_(knobs),
        round_s_(round_s),
        threads_(threads),
        lookahead_(std::move(lookahead)),
        forecast_(forecast),
        tie_(tie) {}

  std::string_view Name() const override { return "dynamic"; }

  // A copy with its own clone of the current candidate (ModularPolicy's are clonable).
  Result<std::unique_ptr<Policy>> Clone() const override {
    auto copy = std::make_unique<DynamicPolicy>(candidates_, knobs_, round_s_, threads_,
                                                lookahead_, forecast_, tie_);
    if (current_ != nullptr) {
      Result<std::unique_ptr<Policy>> current = current_->Clone();
      if (!current.ok()) {
        return Status::InvalidArgument("policy 'dynamic': " + current.status().message());
      }
      copy->current_ = std::move(current).value();
    }
    copy->current_index_ = current_index_;
    copy->next_round_ = next_round_;
    copy->in_system_ = in_system_;
    copy->rounds_ = rounds_;
    copy->recent_ = recent_;
    return std::unique_ptr<Policy>(std::move(copy));
  }

  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    const Time now = view.Now();
    in_system_ += static_cast<int64_t>(events.arrived.size()) - static_cast<int64_t>(events.finished.size());
    if (forecast_.kind != Forecast::Kind::kNone) {
      // Finished jobs leave the view: the window's arrivals are kept here.
      for (JobId id : events.arrived) recent_.push_back(view.Spec(id));
    }
    const bool fresh_start = current_ == nullptr;
    const bool round = fresh_start || !(now < next_round_);
    bool fresh = fresh_start;
    if (round) {
      next_round_ = (std::floor(now / round_s_) + 1) * round_s_;
      Result<bool> switched = Choose(view, fresh_start);
      if (!switched.ok()) return out->Fail(switched.status().message());
      fresh = fresh || *switched;
    }
    if (fresh) {
      // The new policy has heard of nothing: every pending job is an arrival to it, and
      // it adopts the running ones (the Policy contract's fresh policy after a restart).
      EventBatch adopt;
      adopt.arrived = view.PendingJobs();
      adopt.woken = events.woken;
      current_->Decide(view, adopt, out);
    } else {
      current_->Decide(view, events, out);
    }
    if (out->failed()) return;
    // Nothing in the system after these decisions: sleep until the next arrival.
    in_system_ -= static_cast<int64_t>(out->reject.size());
    if (in_system_ > 0) out->wake_at = std::min(out->wake_at, next_round_);
  }

  Status WriteOutputs(const std::string& dir) const override {
    const std::string path = dir + "/switches.csv";
    std::ofstream f(path);
    if (!f) return Status::IoError(path + ": cannot write");
    f << "time_s,jobs,scheduling,admission,placement,predicted_avg_jct_s,switched\n";
    char num[64];
    for (const Round& r : rounds_) {
      const Candidate& c = candidates_[r.chosen];
      std::snprintf(num, sizeof(num), "%.17g,%zu,", r.time_s, r.jobs);
      f << num << c.scheduling << ',' << c.admission << ',' << c.placement << ',';
      std::snprintf(num, sizeof(num), "%.17g,%d\n", r.predicted_avg_jct_s, r.switched ? 1 : 0);
      f << num;
    }
    return f.good() ? Status::Ok() : Status::IoError(path + ": write failed");
  }

 private:
  // Simulates every candidate ahead and makes the best one current. Returns whether the
  // current policy changed (a fresh one must adopt the jobs).
  Result<bool> Choose(const ClusterView& view, bool none_yet) {
    const size_t jobs = view.RunningJobs().size() + view.PendingJobs().size();
    size_t best = current_index_;
    if (jobs > 0) {
      Time horizon = kNever;
      if (forecast_.kind == Forecast::Kind::kHorizon) {
        Result<std::vector<Score>> blind = PredictAll(view, {});
        if (!blind.ok()) return blind.status();
        for (const Score& s : *blind) horizon = std::min(horizon, s.last_end_s);
      }
      Result<std::vector<Score>> predicted = PredictAll(view, ForecastArrivals(view, horizon));
      if (!predicted.ok()) return predicted.status();
      const std::vector<Score>& score = *predicted;
      // The lowest wins; of equal ones (tie=order) the earliest in option order (Blox:
      // min() over its candidates in order), whichever is current.
      best = 0;
      for (size_t i = 1; i < score.size(); ++i) {
        const bool better = tie_ == TieRule::kEarlierEnds
                                ? EndsEarlier(score[i], score[best])
                                : score[i].avg_jct_s < score[best].avg_jct_s;
        if (better) best = i;
      }
      rounds_.push_back(Round{view.Now(), jobs, best, score[best].avg_jct_s,
                              !none_yet && best != current_index_});
    }
    if (!none_yet && best == current_index_) return false;
    Result<std::unique_ptr<Policy>> p = MakePolicy(candidates_[best].request, knobs_);
    if (!p.ok()) return p.status();
    current_ = std::move(p).value();
    current_index_ = best;
    return true;
  }

  // Every candidate's look-ahead with `arrivals`, `threads_` at a time.
  Result<std::vector<Score>> PredictAll(const ClusterView& view,
                                        const std::vector<JobSpec>& arrivals) const {
    std::vector<Score> score(candidates_.size());
    std::vector<Status> error(candidates_.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t i = next++; i < candidates_.size(); i = next++) {
        Result<Score> r = Predict(view, candidates_[i], arrivals);
        if (r.ok()) {
          score[i] = std::move(r).value();
        } else {
          error[i] = r.status();
        }
      }
    };
    const size_t n = std::min<size_t>(threads_, candidates_.size());
    std::vector<std::thread> pool;
    for (size_t t = 1; t < n; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    for (const Status& st : error) SCHEDKIT_RETURN_IF_ERROR(st);
    return score;
  }

  // The forecast jobs for a look-ahead from view.Now() (struct Forecast; `horizon` is
  // kHorizon's), with ids above every job id of the view and of the window, in (submit, id)
  // order; drops the arrivals that fell out of the window.
  std::vector<JobSpec> ForecastArrivals(const ClusterView& view, Time horizon) {
    std::vector<JobSpec> out;
    if (forecast_.kind == Forecast::Kind::kNone) return out;
    const Time from = view.Now() - forecast_.window_s;  // The window is (from, now].
    while (!recent_.empty() && !(recent_.front().submit_s > from)) recent_.pop_front();
    JobId next_id = 0;
    for (JobId id : view.RunningJobs()) next_id = std::max(next_id, id + 1);
    for (JobId id : view.PendingJobs()) next_id = std::max(next_id, id + 1);
    for (const JobSpec& j : recent_) next_id = std::max(next_id, j.id + 1);
    if (forecast_.kind == Forecast::Kind::kHorizon) {
      if (horizon == kNever) return out;
    } else {
      out.reserve(recent_.size() * forecast_.windows);
    }
    for (int64_t k = 1; forecast_.kind == Forecast::Kind::kHorizon || k <= forecast_.windows; ++k) {
      const size_t before = out.size();
      for (const JobSpec& j : recent_) {
        if (forecast_.kind == Forecast::Kind::kHorizon &&
            !(j.submit_s + static_cast<double>(k) * forecast_.window_s < horizon)) {
          continue;
        }
        JobSpec copy = j;
        copy.id = next_id++;
        copy.submit_s = j.submit_s + static_cast<double>(k) * forecast_.window_s;
        out.push_back(std::move(copy));
      }
      if (out.size() == before) break;  // Every replay of this k is past the horizon.
    }
    return out;
  }

  Result<Score> Predict(const ClusterView& view, const Candidate& c,
                         const std::vector<JobSpec>& arrivals) const {
    Result<std::unique_ptr<Policy>> policy = MakePolicy(c.request, knobs_);
    if (!policy.ok()) return policy.status();
    SimulatorOptions options = lookahead_;
    // The run's table, lent for the look-ahead, which ends before this call returns.
    options.throughputs = std::shared_ptr<const ThroughputTable>(view.Throughputs(),
                                                                 [](const ThroughputTable*) {});
    Result<std::vector<PredictedFinish>> finish =
        SimulateFrom(view, policy->get(), options, arrivals);
    if (!finish.ok()) return finish.status();
    return ScoreOf(*finish, options.decision_round_s, tie_ == TieRule::kEarlierEnds);
  }

  const std::vector<Candidate> candidates_;
  const PolicyKnobs knobs_;
  const double round_s_;
  const int threads_;
  const SimulatorOptions lookahead_;
  const Forecast forecast_;
  const TieRule tie_;
  // forecast=recent: the arrivals heard of since the window's start, in arrival order.
  std::deque<JobSpec> recent_;
  std::unique_ptr<Policy> current_;
  size_t current_index_ = 0;
  Time next_round_ = 0;
  int64_t in_system_ = 0;  // Arrived, not finished, not rejected: pending or running.
  std::vector<Round> rounds_;
};

// "NAME" or "NAME:KEY=VALUE:KEY=VALUE" -> the request's admission and its options.
Status ParseAdmission(const std::string& text, PolicyRequest* request) {
  std::vector<std::string> parts = SplitList(text, ':');
  request->admission = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    const size_t eq = parts[i].find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument("dynamic: option 'admissions': '" + text +
                                     "': expected NAME or NAME:KEY=VALUE[:KEY=VALUE...]");
    }
    request->options["admission." + parts[i].substr(0, eq)] = parts[i].substr(eq + 1);
  }
  return Status::Ok();
}

Result<std::vector<Candidate>> MakeCandidates(const PolicyContext& ctx) {
  std::vector<Candidate> out;
  for (const std::string& s : SplitList(ctx.options.String("schedulings"), ',')) {
    for (const std::string& a : SplitList(ctx.options.String("admissions"), ',')) {
      for (const std::string& p : SplitList(ctx.options.String("placements"), ',')) {
        Candidate c{s, a, p, PolicyRequest()};
        if (s == "dynamic") return Status::InvalidArgument("dynamic: a candidate cannot be 'dynamic'");
        c.request.policy = s;
        c.request.placement = p;
        c.request.seed = ctx.seed;
        SCHEDKIT_RETURN_IF_ERROR(ParseAdmission(a, &c.request));
        // Builds it once now so that a bad name or option fails the construction.
        Result<std::unique_ptr<Policy>> made = MakePolicy(c.request, ctx.knobs);
        if (!made.ok()) {
          return Status::InvalidArgument("dynamic: candidate " + s + " x " + a + " x " + p + ": " +
                                         made.status().message());
        }
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

}  // namespace

Status RegisterDynamic(Registries* r) {
  PolicyRegistry::Entry e;
  e.name = "dynamic";
  e.description =
      "Blox's dynamic policy: every round, simulate each scheduling x admission x placement "
      "ahead and run the one with the lowest predicted average JCT";
  e.options = {
      {"round_s", OptionSpec::Type::kDouble, "300", "seconds between look-aheads (> 0)"},
      {"schedulings", OptionSpec::Type::kString, "las,fifo,srtf",
       "candidate scheduling policies (registered policies that take admission and placement); "
       "the order is Blox's, and ties go to the earliest candidate (see tie)"},
      {"admissions", OptionSpec::Type::kString,
       "accept-all,load-based:threshold=1.2,load-based:threshold=1.4",
       "candidate admission modules: NAME or NAME:KEY=VALUE[:KEY=VALUE...]"},
      {"placements", OptionSpec::Type::kString, "best-fit", "candidate placement modules"},
      {"threads", OptionSpec::Type::kInt, "4", "candidates simulated at a time (>= 1)"},
      {"tie", OptionSpec::Type::kString, "order",
       "equal predicted averages: order (Blox's: the earliest candidate) or earlier-ends (the "
       "candidate whose sorted predicted job ends are earlier at the first difference, then "
       "the order)"},
      {"forecast", OptionSpec::Type::kString, "none",
       "arrivals the look-ahead sees: none (Blox's), recent (the last forecast_window_s "
       "seconds' arrivals replayed forecast_windows times, every forecast_window_s) or horizon "
       "(the same replays until the earliest time a candidate's no-arrival look-ahead ends "
       "every job in the system); the average JCT is then over them too"},
      {"forecast_window_s", OptionSpec::Type::kDouble, "-1",
       "forecast=recent or horizon: the window, seconds (> 0; -1: round_s)"},
      {"forecast_windows", OptionSpec::Type::kInt, "1",
       "forecast=recent: how many times the window's arrivals are replayed (>= 1)"},
      {"overhead_s", OptionSpec::Type::kDouble, "-1",
       "restart overhead the look-ahead charges (-1: the default table, as `schedkit "
       "simulate` without --overhead-s / --overhead-table; -1 or 0 under a profile without "
       "restart costs, --compat blox)"},
  };
  e.takes_placement = false;
  e.takes_admission = false;
  e.default_placement = "";
  e.default_admission = "";
  e.factory = [](PolicyContext& ctx) -> Result<std::unique_ptr<Policy>> {
    const double round_s = ctx.options.Double("round_s");
    if (!(round_s > 0) || !std::isfinite(round_s)) {
      return Status::InvalidArgument("dynamic: option 'round_s' must be > 0");
    }
    if (ctx.knobs.list_ordered_replacement) {
      // Replace-all candidates keep their own job list, which jobs they did not start never
      // join until preempted (ModularPolicy::AdoptRunning): a switch could not hand them over.
      return Status::InvalidArgument(
          "dynamic: not available under replace-all preemption (--compat muri): a fresh "
          "candidate cannot adopt the running jobs");
    }
    const int64_t threads = ctx.options.Int("threads");
    if (threads < 1 || threads > 1024) {
      return Status::InvalidArgument("dynamic: option 'threads' must be in 1..1024");
    }
    const double overhead_s = ctx.options.Double("overhead_s");
    if (overhead_s != -1 && !(overhead_s >= 0 && std::isfinite(overhead_s))) {
      return Status::InvalidArgument("dynamic: option 'overhead_s' must be -1 or >= 0");
    }
    Forecast forecast;
    const std::string forecast_kind = ctx.options.String("forecast");
    if (forecast_kind == "recent") {
      forecast.kind = Forecast::Kind::kRecent;
    } else if (forecast_kind == "horizon") {
      forecast.kind = Forecast::Kind::kHorizon;
    } else if (forecast_kind != "none") {
      return Status::InvalidArgument(
          "dynamic: option 'forecast' must be none, recent or horizon, got '" + forecast_kind + "'");
    }
    TieRule tie = TieRule::kOrder;
    const std::string tie_kind = ctx.options.String("tie");
    if (tie_kind == "earlier-ends") {
      tie = TieRule::kEarlierEnds;
    } else if (tie_kind != "order") {
      return Status::InvalidArgument("dynamic: option 'tie' must be order or earlier-ends, got '" +
                                     tie_kind + "'");
    }
    forecast.window_s = ctx.options.Double("forecast_window_s");
    if (forecast.kind == Forecast::Kind::kNone && forecast.window_s != -1) {
      return Status::InvalidArgument(
          "dynamic: option 'forecast_window_s' needs forecast=recent or horizon");
    }
    if (forecast.window_s == -1) forecast.window_s = round_s;
    if (!(forecast.window_s > 0) || !std::isfinite(forecast.window_s)) {
      return Status::InvalidArgument("dynamic: option 'forecast_window_s' must be > 0 or -1");
    }
    const int64_t windows = ctx.options.Int("forecast_windows");
    if (windows < 1 || windows > 1000000) {
      return Status::InvalidArgument("dynamic: option 'forecast_windows' must be in 1..1000000");
    }
    if (forecast.kind != Forecast::Kind::kRecent && windows != 1) {
      return Status::InvalidArgument("dynamic: option 'forecast_windows' needs forecast=recent");
    }
    forecast.windows = static_cast<int>(windows);
    // The engine the run runs (the profile's, PolicyKnobs::engine_*). The runtime factor
    // applies to forecast jobs only: the view's jobs come with their remaining work.
    SimulatorOptions lookahead;
    lookahead.runtime_factor = ctx.knobs.runtime_factor;
    lookahead.progress = ctx.knobs.engine_progress;
    lookahead.decision_round_s = ctx.knobs.engine_round_s;
    if (!ctx.knobs.engine_restart_overheads) {
      if (overhead_s > 0) {
        return Status::InvalidArgument(
            "dynamic: option 'overhead_s' must be -1 or 0 under a profile without restart costs");
      }
      lookahead.overheads = RestartOverheads(0);
    } else if (overhead_s == -1) {
      Result<RestartOverheads> table = DefaultRestartOverheads();
      if (!table.ok()) return table.status();
      lookahead.overheads = std::move(table).value();
    } else {
      lookahead.overheads = RestartOverheads(overhead_s);
    }
    Result<std::vector<Candidate>> candidates = MakeCandidates(ctx);
    if (!candidates.ok()) return candidates.status();
    return std::unique_ptr<Policy>(std::make_unique<DynamicPolicy>(
        std::move(candidates).value(), ctx.knobs, round_s, static_cast<int>(threads),
        std::move(lookahead), forecast, tie));
  };
  return r->policies.Register(std::move(e));
}

}  // namespace schedkit
