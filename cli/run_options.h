// The options of every command that runs policies on a trace (`simulate`, `compare`): one
// struct, registered on each command by one function, resolved and checked by one
// function (docs/cli.md, "Run options").
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schedkit/compat.h"
#include "schedkit/registry.h"
#include "schedkit/simulator.h"
#include "schedkit/status.h"
#include "schedkit/trace.h"

namespace schedkit::cli {

struct RunArgs {
  std::string trace, format = "auto", cluster;
  std::string window_begin, window_end;  // Dated logs only (TraceOptions).
  std::vector<std::string> policies;  // --policy NAME (simulate) or --policies A,B (compare).
  std::string placement, admission;
  std::vector<std::string> opts;  // key=value.
  std::string compat = "none";
  uint64_t seed = 0;
  std::optional<double> overhead_s;
  std::string overhead_table;
  std::optional<double> runtime_factor;
  std::string measure_jobs;  // --measure-jobs FIRST-LAST; empty: the profile's window, or all.
  std::string membership;  // Nodes joining, draining, failing, recovering (membership.h).
  std::string throughputs;  // Gavel's throughput table (throughput.h); empty: none.
  std::string scaling;  // Elastic jobs' scaling table (scaling.h); empty: the shipped one.
  std::string vc_config;  // simulate only.
  bool stream = false;    // simulate only: read the trace row by row (StreamTrace).
  int threads = 0;
  std::string out;

  // True iff the user gave `flag` (e.g. "--seed") on the command line.
  // REQUIRES: AddRunOptions registered this struct, and parsing is done.
  bool Given(const std::string& flag) const;

  const CLI::App* command = nullptr;  // Set by AddRunOptions.
};

// Which command the options are for: simulate runs one policy (--policy, --vc-config);
// compare runs a list (--policies) side by side.
enum class RunCommand { kSimulate, kCompare };

// Registers the run options on `command`, parsed into `*args` (which must outlive parsing),
// with validators: files that exist, finite numbers in range, compat modes and trace formats
// by their names.
void AddRunOptions(RunCommand which, CLI::App* command, RunArgs* args);

// The run options once checked: the mode, the inputs' paths (defaults expanded), the
// parsed --opt pairs, the policies to run and the engine options.
struct RunSetup {
  CompatMode compat = CompatMode::kNone;
  std::string trace_path, cluster_path;
  std::string membership_path;  // --membership; empty: a fixed cluster.
  TraceOptions trace_options;  // --format, --window-begin, --window-end.
  std::map<std::string, std::string> opts;
  std::vector<std::string> policies;
  SimulatorOptions engine;  // Restart overheads and solo-runtime factor.
};

// Checks `args` as a whole before anything runs. Fails with one line on an option the
// chosen mode would ignore (e.g. --seed under --compat lucid, --threads without
// --vc-config), on malformed --opt pairs, or on overheads that cannot be loaded.
Result<RunSetup> ResolveRunArgs(RunCommand which, const RunArgs& args);

// The request for one policy of `setup`. Under `compare`, an --opt key goes only to the
// policies that declare it (module keys to those that take the module). Fails on a module
// the policy does not take (CheckModulesTaken); an unknown policy is left to MakePolicy.
Result<PolicyRequest> RequestFor(RunCommand which, const RunArgs& args, const RunSetup& setup,
                                 const std::string& policy);

}  // namespace schedkit::cli
