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

#include <cstdint>
#include <optional>
#include <string>

#include "schedkit/status.h"

namespace schedkit {

enum class CompatMode {
  kNone,   // schedkit's clean model.
  kMuri,   // The Muri simulator (itself derived from Tiresias').
  kLucid,  // The Lucid simulator; a separate engine (schedkit/lucid.h, lucid::RunCompat).
  kBlox,   // Blox's simulator (msr-fiddle/blox): 300-s rounds.
};

// "none", "muri", "lucid", "blox". Fails naming the known modes otherwise.
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

// What LAS counts as a job's attained service.
enum class AttainedService {
  kGpuSeconds,   // Wall seconds run x GPUs (2D-LAS, Tiresias).
  kWallSeconds,  // Wall seconds run, whatever the GPUs (Blox's LAS).
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
  // LAS's attained service.
  AttainedService las_attained = AttainedService::kGpuSeconds;
  // Queue policies place by Blox's rule (ModularPolicyConfig::tail_preemption): jobs in
  // priority order; one that does not fit preempts running jobs from the tail of the
  // order, one at a time, until it fits (those preemptions stand even if it never fits);
  // the first job that cannot be placed ends the walk (no backfill).
  bool tail_preemption = false;
  // The profile's engine, for policies that simulate ahead (the `dynamic` policy's
  // look-ahead runs the engine the run runs): its progress model, its decision rounds
  // (CompatProfile::decision_round_s) and whether restarts cost their overhead. ProfileFor
  // copies them from the row's own fields; they are never set apart.
  ProgressModel engine_progress = ProgressModel::kClean;
  double engine_round_s = 0;
  bool engine_restart_overheads = true;
};

// The jobs a summary's per-job statistics are taken over: ids first..last, inclusive.
struct MeasuredJobs {
  int64_t first = 0;
  int64_t last = 0;
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
  // Engine: > 0 makes decisions only at multiples of this many seconds (rounds): an
  // arrival, a completion, a membership change or a wake-up at t is seen by the policy
  // at the first multiple >= t (SimulatorOptions::decision_round_s). 0: event-driven.
  double decision_round_s = 0;
  // Metrics: > 0 records a job's end as the first multiple of this many seconds at or
  // after its completion (the end of the round in which it finished), so JCTs count to
  // the round's end. 0: the exact completion time.
  double end_round_s = 0;
  // Metrics: the summary's per-job statistics over these job ids only (unset: all).
  std::optional<MeasuredJobs> measured;
  // False: jobs pay no restart overhead (the run's overhead table is replaced by zeros).
  bool restart_overheads = true;
  // The placement module of a policy that takes one when the request names none; empty:
  // the policy's own default.
  const char* default_placement = "";
};

// The table's row for `mode`. Never fails: every mode has a row.
const CompatProfile& ProfileFor(CompatMode mode);

// The row for `mode` with the user's --runtime-factor, if given, in both the engine's
// factor and the policies' knob: the factor has one value per run.
CompatProfile ResolveProfile(CompatMode mode, std::optional<double> runtime_factor);

// Blox's simulator: its round length, and the job ids its figures measure (inclusive).
inline constexpr double kBloxRoundS = 300;
inline constexpr int64_t kBloxMeasuredFirst = 3000;
inline constexpr int64_t kBloxMeasuredLast = 4000;

// Muri's jobs.py multiplies every solo runtime by this. The only definition.
inline constexpr double kMuriRuntimeFactor = 1.015;

}  // namespace schedkit

#endif  // SCHEDKIT_COMPAT_H_
