#include "schedkit/compat.h"

namespace schedkit {
namespace {

struct ModeName {
  CompatMode mode;
  const char* name;
};
constexpr ModeName kModeNames[] = {
    {CompatMode::kNone, "none"},
    {CompatMode::kMuri, "muri"},
    {CompatMode::kLucid, "lucid"},
    {CompatMode::kBlox, "blox"}};

CompatProfile MakeMuriProfile() {
  CompatProfile p;
  p.mode = CompatMode::kMuri;
  p.summary = "the Muri simulator (Muri/Tiresias figures): interval overheads, x1.015 runtimes, "
              "list-ordered re-placement, calc.py percentiles";
  p.progress = ProgressModel::kMuriInterval;
  p.runtime_factor = kMuriRuntimeFactor;
  p.percentiles = PercentileRule::kMuriIndex;
  p.knobs.runtime_factor = kMuriRuntimeFactor;
  p.knobs.list_ordered_replacement = true;
  p.knobs.whole_second_thresholds = true;
  p.knobs.key_unstarted_by_trace_duration = true;
  p.knobs.reference_matching_order = true;
  p.knobs.default_isolated_time = IsolatedTimeUnit::kIterations;
  return p;
}

CompatProfile MakeLucidProfile() {
  CompatProfile p;
  p.mode = CompatMode::kLucid;
  p.summary = "the Lucid simulator (Lucid figures): its own 1-second-tick engine over virtual "
              "clusters";
  p.own_engine = true;
  return p;
}

CompatProfile MakeBloxProfile() {
  CompatProfile p;
  p.mode = CompatMode::kBlox;
  p.summary = "Blox's simulator (Blox figures): 300-s rounds, JCT to the round's end, first-fit "
              "with tail preemption and no backfill, LAS on wall-seconds, no restart cost, "
              "job ids 3000-4000 measured";
  p.decision_round_s = kBloxRoundS;
  p.end_round_s = kBloxRoundS;
  p.measured = MeasuredJobs{kBloxMeasuredFirst, kBloxMeasuredLast};
  p.restart_overheads = false;
  p.default_placement = "first-fit";
  p.knobs.las_attained = AttainedService::kWallSeconds;
  p.knobs.tail_preemption = true;
  return p;
}

// The knobs that mirror the row's engine (PolicyKnobs::engine_*).
CompatProfile WithEngineKnobs(CompatProfile p) {
  p.knobs.engine_progress = p.progress;
  p.knobs.engine_round_s = p.decision_round_s;
  p.knobs.engine_restart_overheads = p.restart_overheads;
  return p;
}

CompatProfile MakeCleanProfile() {
  CompatProfile p;
  p.summary = "schedkit's clean model: exact completions, one restart overhead per start";
  return p;
}

}  // namespace

Result<CompatMode> ParseCompatMode(const std::string& name) {
  std::string known;
  for (const ModeName& m : kModeNames) {
    if (name == m.name) return m.mode;
    known += known.empty() ? "" : ", ";
    known += m.name;
  }
  return Status::InvalidArgument("unknown compat mode '" + name + "' (expected one of: " + known +
                                 ")");
}

const char* CompatModeName(CompatMode mode) {
  for (const ModeName& m : kModeNames) {
    if (m.mode == mode) return m.name;
  }
  return "unknown";
}

const char* ProgressModelName(ProgressModel model) {
  switch (model) {
    case ProgressModel::kClean:
      return "clean";
    case ProgressModel::kMuriInterval:
      return "muri-interval";
  }
  return "unknown";
}

const CompatProfile& ProfileFor(CompatMode mode) {
  static const CompatProfile kClean = WithEngineKnobs(MakeCleanProfile());
  static const CompatProfile kMuri = WithEngineKnobs(MakeMuriProfile());
  static const CompatProfile kLucid = WithEngineKnobs(MakeLucidProfile());
  static const CompatProfile kBlox = WithEngineKnobs(MakeBloxProfile());
  switch (mode) {
    case CompatMode::kBlox:
      return kBlox;
    case CompatMode::kMuri:
      return kMuri;
    case CompatMode::kLucid:
      return kLucid;
    case CompatMode::kNone:
      break;
  }
  return kClean;
}

CompatProfile ResolveProfile(CompatMode mode, std::optional<double> runtime_factor) {
  CompatProfile p = ProfileFor(mode);
  if (runtime_factor) {
    p.runtime_factor = *runtime_factor;
    p.knobs.runtime_factor = *runtime_factor;
  }
  return p;
}

}  // namespace schedkit
