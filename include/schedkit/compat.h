// Compatibility profiles: the documented sets of semantics under which schedkit
// reproduces another simulator's published numbers.
//
// A profile is a row of one table (ProfileFor), chosen once when a run is set up, in the
// way SimGrid selects its models from a table. The engine receives the profile's
// progress model and runtime factor; policies receive its PolicyKnobs. Nothing below the
// command line, the run set-up and this table reads CompatMode: a policy asks "are
// thresholds exact?", never "is this Muri?". docs/architecture.md lists every knob and
// docs/fidelity.md why each profile sets it.
#ifndef SCHEDKIT_COMPAT_H_
#define SCHEDKIT_COMPAT_H_

#include <optional>
#include <string>

#include "schedkit/status.h"

namespace schedkit {

enum class CompatMode {
  kNone,   // schedkit's clean model.
  kMuri,   // The Muri simulator (itself derived from Tiresias').
  kLucid,  // The Lucid simulator; a separate engine (schedkit/lucid.h, lucid::RunCompat).
};

// "none", "muri", "lucid". Fails naming the known modes otherwise.
Result<CompatMode> ParseCompatMode(const std::string& name);
const char* CompatModeName(CompatMode mode);

// How the simulator books a running job's progress.
enum class ProgressModel {
  // A job pays its restart overhead once per (re)start, at the start, then progresses
  // at its rate; completion events are exact.
  kClean,
  // The Muri simulator: every inter-event interval in which a job runs costs its restart
  // overhead (a group's members each pay the group's summed overhead), progress is booked
  // at events only, and every running job's completion is re-predicted at every event.
  kMuriInterval,
};
const char* ProgressModelName(ProgressModel model);

// How percentiles are read from n sorted values.
enum class PercentileRule {
  kNearestRank,  // Value at 1-based rank ceil(p x n).
  kMuriIndex,    // Value at 0-based index int(p x n), as Muri's calc.py does.
};

// Units of Themis' isolated (alone-on-its-fair-share) time.
enum class IsolatedTimeUnit {
  kSeconds,     // What Themis defines.
  kIterations,  // What Muri's get_isolated_throughputs returns (iterations per share).
};

// The explicit choices a profile makes for policies. Each built-in policy reads only
// the knobs that concern it, through PolicyContext::knobs.
struct PolicyKnobs {
  // The engine's solo-runtime multiplier: a policy that predicts run times from a job's
  // iterations uses it to count in the engine's seconds.
  double runtime_factor = 1.0;
  // Preemptive ordering policies rebuild the whole schedule at every event from one
  // persistent, stable-sorted job list (the Muri simulator's replace-all; ModularPolicy
  // step 5), and multi-level queues keep list order within a level.
  bool list_ordered_replacement = false;
  // Queue thresholds are reached at attained >= threshold exactly, and a running job's
  // demotion falls on a whole second of its executed time (the Muri simulator's
  // 1-second accounting); otherwise the computed crossing instant, with a few ulps'
  // slack.
  bool whole_second_thresholds = false;
  // Muri-S keys a job that never ran by its trace duration (without the runtime factor),
  // not by its remaining work.
  bool key_unstarted_by_trace_duration = false;
  // Co-location matchings reproduce the reference's choice among equal-weight matchings
  // (Muri's own O(n^3) blossom on directed pair weights, packs in rank order) instead of
  // any maximum-weight matching (job kinds, canonical order).
  bool reference_matching_order = false;
  // Themis' isolated time when its option `isolated_time` is `auto`.
  IsolatedTimeUnit default_isolated_time = IsolatedTimeUnit::kSeconds;
};

struct CompatProfile {
  CompatMode mode = CompatMode::kNone;
  const char* summary = "";  // One line, for --help and docs.
  // The mode runs on an engine of its own and not through MakePolicy / the simulator.
  bool own_engine = false;
  ProgressModel progress = ProgressModel::kClean;
  // Solo-runtime multiplier unless the user gives --runtime-factor.
  double runtime_factor = 1.0;
  PercentileRule percentiles = PercentileRule::kNearestRank;
  PolicyKnobs knobs;
};

// The table's row for `mode`. Never fails: every mode has a row.
const CompatProfile& ProfileFor(CompatMode mode);

// The row for `mode` with the user's --runtime-factor, if given, in both the engine's
// factor and the policies' knob: the factor has one value per run.
CompatProfile ResolveProfile(CompatMode mode, std::optional<double> runtime_factor);

// Muri's jobs.py multiplies every solo runtime by this. The only definition.
inline constexpr double kMuriRuntimeFactor = 1.015;

}  // namespace schedkit

#endif  // SCHEDKIT_COMPAT_H_
