// What every `schedkit` subcommand file shares. Subcommands live one area per file
// (cli/<area>_commands.cc); an area adds its subcommands to the app and says, for each, what
// to run when it is the one parsed. main.cc lists the areas, one line each.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "schedkit/registry.h"
#include "schedkit/simulator.h"
#include "schedkit/status.h"
#include "schedkit/trace.h"

namespace schedkit::cli {

// Prints "schedkit: MESSAGE" on stderr and returns the exit code 1.
int Fail(const std::string& message);

// Replaces this process by /usr/bin/python3 -m MODULE ARGS, with the project's python/ folder
// ($SCHEDKIT_PYTHON_DIR if set) first on PYTHONPATH. Returns only on failure (exit code 1).
int ExecPythonModule(const std::string& module, const std::vector<std::string>& args);

// Parses repeated `--opt key=value` arguments.
Result<std::map<std::string, std::string>> ParseOpts(const std::vector<std::string>& opts);

// Adds `--plugin lib.so` and `--python MODULE:CLASS` (both repeatable) to a command that
// takes a policy. main loads every plugin, then every Python policy, given (LoadPluginArgs)
// once parsing is done, before any command resolves a policy.
void AddPluginOption(CLI::App* command);
// The --plugin paths and --python specs given, in order.
const std::vector<std::string>& PluginArgs();
const std::vector<std::string>& PythonArgs();
// LoadPlugins and LoadPythonPolicy on them (schedkit/plugin.h).
Status LoadPluginArgs();

// One subcommand: its parser node and what it does once parsed (the exit code). `run` owns the
// parsed arguments (capture them by shared_ptr), since `command` writes into them at parse time.
struct Subcommand {
  CLI::App* command;
  std::function<int()> run;
};

// Spark DAG scheduling: `schedkit dag simulate|collect` (cli/dag_commands.cc).
void AddDagCommands(CLI::App& app, std::vector<Subcommand>& out);

// Fractional GPU sharing: `schedkit fgd run|policies` (cli/fgd_commands.cc, docs/fgd.md).
void AddFgdCommands(CLI::App& app, std::vector<Subcommand>& out);

// Gavel's allocation policies: `schedkit gavel allocate|policies` (cli/gavel_commands.cc,
// docs/gavel.md).
void AddGavelCommands(CLI::App& app, std::vector<Subcommand>& out);

// `schedkit trace stats` (cli/trace_commands.cc).
void AddTraceCommands(CLI::App& app, std::vector<Subcommand>& out);

// `schedkit predict ...` (cli/predict_commands.cc, docs/predict.md).
void AddPredictCommands(CLI::App& app, std::vector<Subcommand>& out);

// The real-cluster runtime: serve and its clients (docs/runtime.md; cli/runtime_commands.cc,
// built into libschedkit_runtime_commands.so: registry/companion.h). Opens that library and
// adds its commands unless the command line (`argc`, `argv`) names a command `app` already
// has or asks only for --version: the other commands start without loading gRPC, protobuf
// and SQLite (~16 ms). Fails if the library is needed and cannot be opened. No commands
// when built with SCHEDKIT_BUILD_RUNTIME=OFF.
Status AddRuntimeCommands(CLI::App& app, std::vector<Subcommand>& out, int argc,
                          const char* const* argv);

// `--compat lucid` for simulate (one policy) and compare (several): loads the Lucid/Helios
// log keeping the configured VCs, runs each policy, prints the metrics and, when `out` is
// given, writes jobs.csv, vcs.csv and summary.json (in out/<policy>/ when several run).
int RunLucidCompat(const std::string& trace_path, const TraceOptions& trace_options,
                   const std::vector<std::string>& policies, const std::vector<std::string>& opts,
                   const std::string& out);

// `simulate --vc-config FILE`: the clean model over virtual clusters (one independent
// simulation per VC, `threads` at a time); prints per-VC and cluster-wide metrics and,
// with `out`, writes out/vcs.csv and out/<vc>/jobs.csv.
int RunVirtualClusterSimulation(const std::string& trace_path, const TraceOptions& trace_options,
                                const std::string& vc_config, const PolicyRequest& request,
                                const SimulatorOptions& options, int threads,
                                const std::string& out);

}  // namespace schedkit::cli
