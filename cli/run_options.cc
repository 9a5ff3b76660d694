#include "run_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <initializer_list>

#include "commands.h"
#include "schedkit/run.h"
#include "schedkit/throughput.h"
#include "schedkit/trace.h"

namespace schedkit::cli {
namespace {

const char* const kDefaultTrace = "/traces/muri_trace3.csv";
const char* const kDefaultCluster = "/clusters/muri_n8g8.csv";
const char* const kDefaultPolicy = "tiresias";
const char* const kDefaultComparison = "fifo,sjf,srtf,srsf,las,tiresias";
// Under --compat lucid, compare's default list means the Lucid simulator's five policies.
const char* const kDefaultLucidComparison = "fifo,sjf,qssf,tiresias,lucid";

// A finite number > 0 (>= 0 if `zero_allowed`). CLI11's own range checks let NaN through.
CLI::Validator FiniteNumber(bool zero_allowed) {
  const std::string bound = zero_allowed ? ">= 0" : "> 0";
  return CLI::Validator(
      [zero_allowed, bound](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        const bool in_range = zero_allowed ? v >= 0 : v > 0;
        if (text.empty() || *end != '\0' || !std::isfinite(v) || !in_range) {
          return "must be a finite number " + bound + ", got " + Quoted(text);
        }
        return "";
      },
      "NUMBER " + bound);
}

// A name that `parse` accepts; its message (which lists the known names) otherwise.
template <typename Parse>
CLI::Validator NameParsedBy(Parse parse, const std::string& description) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        auto parsed = parse(text);
        return parsed.ok() ? "" : parsed.status().message();
      },
      description);
}

struct Ignored {
  const char* flag;
  const char* why;
};

// Fails on the first of `flags` the user gave: under `context` it would be ignored.
Status RefuseGiven(const RunArgs& args, const std::string& context,
                   std::initializer_list<Ignored> flags) {
  for (const Ignored& f : flags) {
    if (args.Given(f.flag)) {
      return Status::InvalidArgument(context + " ignores " + f.flag + " (" + f.why +
                                     "): remove it");
    }
  }
  return Status::Ok();
}

// Options the chosen mode and command would ignore.
Status RefuseIgnored(RunCommand which, const RunArgs& args, CompatMode mode) {
  if (mode == CompatMode::kLucid) {
    return RefuseGiven(
        args, "--compat lucid",
        {{"--cluster", "it runs on the virtual clusters of --opt vc_config=FILE or lucid_dir=DIR"},
         {"--placement", "Lucid's simulator places jobs by its own rules"},
         {"--admission", "Lucid's simulator admits every job"},
         {"--seed", "Lucid's simulator draws no random numbers"},
         {"--overhead-s", "Lucid's simulator has no restart overheads"},
         {"--overhead-table", "Lucid's simulator has no restart overheads"},
         {"--scaling", "Lucid's simulator has no elastic jobs"},
         {"--runtime-factor", "jobs run for their logged durations"},
         {"--membership", "Lucid's simulator has a fixed cluster"},
         {"--measure-jobs", "Lucid's simulator reports over every job"},
         {"--vc-config", "give the virtual clusters as --opt vc_config=FILE"},
         {"--threads", "give Lucid's simulator threads as --opt threads=N"},
         {"--stream", "Lucid's simulator reads the whole trace"}});
  }
  if (mode == CompatMode::kBlox) {
    SCHEDKIT_RETURN_IF_ERROR(
        RefuseGiven(args, "--compat blox",
                    {{"--overhead-s", "Blox's simulator has no restart cost"},
                     {"--overhead-table", "Blox's simulator has no restart cost"}}));
  }
  if (which == RunCommand::kCompare) return Status::Ok();  // Every other flag applies.
  if (args.Given("--vc-config")) {
    return RefuseGiven(
        args, "--vc-config",
        {{"--cluster", "each virtual cluster is its own cluster, from the VC file"},
         {"--membership", "node numbers name no node of a virtual cluster"},
         {"--stream", "the trace is split by virtual cluster as a whole"}});
  }
  return RefuseGiven(args, "simulate without --vc-config",
                     {{"--threads", "one simulation runs on one thread"}});
}

// An existing file, or, for a Gavel JSON spec, an existing file followed by "#NAME[/I]".
CLI::Validator ClusterSpecFile() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        std::error_code ec;
        if (std::filesystem::is_regular_file(path, ec)) return "";
        const size_t hash = path.rfind('#');
        if (hash != std::string::npos &&
            std::filesystem::is_regular_file(path.substr(0, hash), ec)) {
          return "";
        }
        return "File does not exist: " + path;
      },
      "FILE");
}

// "FIRST-LAST", two job ids with FIRST <= LAST.
Result<MeasuredJobs> ParseMeasuredJobs(const std::string& text) {
  const size_t dash = text.find('-', 1);
  MeasuredJobs m;
  if (dash != std::string::npos) {
    const std::string first = text.substr(0, dash), last = text.substr(dash + 1);
    auto parse = [](const std::string& t, int64_t* v) {
      const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *v);
      return !t.empty() && ec == std::errc() && end == t.data() + t.size();
    };
    if (parse(first, &m.first) && parse(last, &m.last) && 0 <= m.first && m.first <= m.last) {
      return m;
    }
  }
  return Status::InvalidArgument("--measure-jobs: expected FIRST-LAST, two job ids with FIRST <= "
                                 "LAST (e.g. 3000-4000), got " + Quoted(text));
}

Result<SimulatorOptions> EngineOptions(const RunArgs& args) {
  SimulatorOptions options;
  options.runtime_factor = args.runtime_factor;
  if (!args.measure_jobs.empty()) {
    Result<MeasuredJobs> measured = ParseMeasuredJobs(args.measure_jobs);
    if (!measured.ok()) return measured.status();
    options.measured = *measured;
  }
  if (!args.throughputs.empty()) {
    Result<ThroughputTable> table = ThroughputTable::LoadGavel(args.throughputs);
    if (!table.ok()) return table.status();
    options.throughputs = std::make_shared<const ThroughputTable>(std::move(table).value());
  }
  if (!args.scaling.empty()) {  // Else RunSimulation loads the shipped table if it needs one.
    Result<ScalingModel> scaling = ScalingModel::Load(args.scaling);
    if (!scaling.ok()) return scaling.status();
    options.scaling = std::make_shared<const ScalingModel>(std::move(scaling).value());
  }
  if (args.overhead_s) {
    options.overheads = RestartOverheads(*args.overhead_s);
    return options;
  }
  Result<RestartOverheads> overheads = args.overhead_table.empty()
                                           ? DefaultRestartOverheads()
                                           : RestartOverheads::Load(args.overhead_table, 10.0);
  if (!overheads.ok()) return overheads.status();
  options.overheads = std::move(overheads).value();
  return options;
}

bool DeclaresOption(const PolicyRegistry::Entry& entry, const std::string& key) {
  if (key.rfind("placement.", 0) == 0) return entry.takes_placement;
  if (key.rfind("admission.", 0) == 0) return entry.takes_admission;
  for (const OptionSpec& o : entry.options) {
    if (o.name == key) return true;
  }
  return false;
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// compare hands each --opt key to the policies that declare it; a key none of them
// declares would be ignored by all.
Status RefuseUndeclaredOptions(const RunSetup& setup) {
  for (const auto& [key, value] : setup.opts) {
    bool declared = false;
    for (const std::string& name : setup.policies) {
      const PolicyRegistry::Entry* entry = BuiltinRegistries().policies.Find(name);
      declared = declared || (entry != nullptr && DeclaresOption(*entry, key));
    }
    if (!declared) {
      return Status::InvalidArgument("--opt " + key +
                                     ": no policy of --policies takes it "
                                     "(see schedkit policies): remove it");
    }
  }
  return Status::Ok();
}

}  // namespace

bool RunArgs::Given(const std::string& flag) const {
  // A flag the command does not have (compare has no --vc-config) was not given.
  const CLI::Option* option = command != nullptr ? command->get_option_no_throw(flag) : nullptr;
  return option != nullptr && option->count() > 0;
}

void AddRunOptions(RunCommand which, CLI::App* command, RunArgs* args) {
  args->command = command;
  const bool simulate = which == RunCommand::kSimulate;
  command->add_option("--trace", args->trace, "trace file (default: the shipped Muri trace3)")
      ->check(CLI::ExistingFile);
  command
      ->add_option("--format", args->format,
                   "trace format: auto, native, muri, gavel, gavel-legacy, lucid, philly, pai, openb")
      ->check(NameParsedBy(ParseTraceFormat, "FORMAT"));
  command->add_option("--window-begin", args->window_begin,
                      "dated logs (lucid format): keep jobs submitted from this time on, "
                      "'YYYY-MM-DD HH:MM:SS' (default: from the data; under --compat lucid "
                      "and --vc-config: Lucid's Venus September window)");
  command->add_option("--window-end", args->window_end,
                      "dated logs (lucid format): keep jobs submitted up to this time "
                      "(default: to the end of the data; see --window-begin)");
  command
      ->add_option("--cluster", args->cluster,
                   "cluster spec (default: the shipped 8x8-GPU spec); a Gavel JSON file may "
                   "end in #NAME or #NAME/I (docs/formats.md)")
      ->check(ClusterSpecFile());
  command
      ->add_option("--throughputs", args->throughputs,
                   "Gavel's throughput table (simulation_throughputs.json): read by Gavel "
                   "traces and seen by policies (docs/heterogeneous.md); default for traces: "
                   "the shipped one")
      ->check(CLI::ExistingFile);
  if (simulate) {
    command->add_option("--policy", args->policies, "policy name (see `schedkit policies`)")
        ->expected(1)
        ->default_str(kDefaultPolicy);
  } else {
    command
        ->add_option("--policies", args->policies,
                     "comma-separated policy names (default: " + std::string(kDefaultComparison) +
                         "; under --compat lucid: " + kDefaultLucidComparison + ")")
        ->delimiter(',');
  }
  const char* every = simulate ? "" : " for every policy";
  command->add_option("--placement", args->placement,
                      std::string("placement module") + every + " (default: the policy's)");
  command->add_option("--admission", args->admission,
                      std::string("admission module") + every + " (default: the policy's)");
  command->add_option("--opt", args->opts,
                      simulate ? "policy option key=value (repeatable)"
                               : "key=value, given to each policy that has the option");
  std::string modes;
  for (CompatMode m : {CompatMode::kNone, CompatMode::kMuri, CompatMode::kLucid, CompatMode::kBlox}) {
    modes +=
        std::string(modes.empty() ? "" : "\n  ") + CompatModeName(m) + ": " + ProfileFor(m).summary;
  }
  command->add_option("--compat", args->compat, "semantics profile (default none):\n  " + modes)
      ->check(NameParsedBy(ParseCompatMode, "MODE"));
  command->add_option("--seed", args->seed, "seed for randomised policies");
  CLI::Option* overhead_s =
      command
          ->add_option("--overhead-s", args->overhead_s, "a fixed restart overhead for every job")
          ->check(FiniteNumber(/*zero_allowed=*/true));
  command
      ->add_option("--overhead-table", args->overhead_table,
                   "restart overheads per model (Muri profile table CSV; default: the shipped one)")
      ->check(CLI::ExistingFile)
      ->excludes(overhead_s);
  command
      ->add_option("--scaling", args->scaling,
                   "how elastic jobs (max_gpus) speed up on more GPUs: a scaling table CSV "
                   "(default: the shipped data/optimus/speedup.csv)")
      ->check(CLI::ExistingFile);
  command
      ->add_option("--runtime-factor", args->runtime_factor,
                   "solo runtime multiplier (default: 1.015 under --compat muri, else 1)")
      ->check(FiniteNumber(/*zero_allowed=*/false));
  command->add_option("--measure-jobs", args->measure_jobs,
                      "FIRST-LAST: summary statistics over these job ids only (default: all; "
                      "3000-4000 under --compat blox)");
  command
      ->add_option("--membership", args->membership,
                   "nodes joining, draining, failing, recovering: CSV time_s,node,event "
                   "(docs/formats.md)")
      ->check(CLI::ExistingFile);
  if (simulate) {
    command
        ->add_option("--vc-config", args->vc_config,
                     "virtual clusters (Lucid vc_config.csv): one simulation per VC, merged")
        ->check(CLI::ExistingFile);
    command->add_flag("--stream", args->stream,
                      "read the trace row by row as the run goes, so memory does not grow with "
                      "it (native, muri and gavel formats, rows sorted by submit time and id)");
  }
  command
      ->add_option("--threads", args->threads,
                   simulate ? "with --vc-config: VCs at a time (default: one per core)"
                            : "policies at a time (default: one per core)")
      ->check(CLI::NonNegativeNumber);
  command->add_option("--out", args->out,
                      simulate
                          ? "write jobs.csv, summary.json, timeseries.csv here (docs/outputs.md)"
                          : "write each policy's outputs in DIR/<policy>/ and (without "
                            "--compat lucid) comparison.csv and comparison.json (docs/sweep.md)");
}

Result<RunSetup> ResolveRunArgs(RunCommand which, const RunArgs& args) {
  RunSetup setup;
  auto compat = ParseCompatMode(args.compat);
  if (!compat.ok()) return compat.status();
  setup.compat = *compat;
  SCHEDKIT_RETURN_IF_ERROR(RefuseIgnored(which, args, setup.compat));
  auto format = ParseTraceFormat(args.format);
  if (!format.ok()) return format.status();
  setup.trace_options.format = *format;
  setup.trace_options.window_begin = args.window_begin;
  setup.trace_options.window_end = args.window_end;
  setup.trace_options.gavel_throughputs_path = args.throughputs;
  auto opts = ParseOpts(args.opts);
  if (!opts.ok()) return opts.status();
  setup.opts = std::move(opts).value();
  const bool lucid = setup.compat == CompatMode::kLucid;
  if (args.Given(which == RunCommand::kSimulate ? "--policy" : "--policies")) {
    for (const std::string& name : args.policies) {
      if (!name.empty()) setup.policies.push_back(name);
    }
    if (setup.policies.empty()) return Status::InvalidArgument("give at least one policy");
  } else if (which == RunCommand::kSimulate) {
    setup.policies = {kDefaultPolicy};
  } else {
    setup.policies = SplitCommas(lucid ? kDefaultLucidComparison : kDefaultComparison);
  }
  if (lucid) {
    // Lucid's log has no default: the shipped Muri trace is not one.
    if (args.trace.empty()) {
      return Status::InvalidArgument("--compat lucid: give --trace (a Lucid/Helios log)");
    }
    setup.trace_path = args.trace;
    return setup;
  }
  if (which == RunCommand::kCompare) SCHEDKIT_RETURN_IF_ERROR(RefuseUndeclaredOptions(setup));
  setup.trace_path = args.trace.empty() ? DataDir() + kDefaultTrace : args.trace;
  setup.cluster_path = args.cluster.empty() ? DataDir() + kDefaultCluster : args.cluster;
  setup.membership_path = args.membership;
  auto engine = EngineOptions(args);
  if (!engine.ok()) return engine.status();
  setup.engine = std::move(engine).value();
  return setup;
}

Result<PolicyRequest> RequestFor(RunCommand which, const RunArgs& args, const RunSetup& setup,
                                 const std::string& policy) {
  PolicyRequest request;
  request.policy = policy;
  request.placement = args.placement;
  request.admission = args.admission;
  request.seed = args.seed;
  request.compat = setup.compat;
  const PolicyRegistry::Entry* entry = BuiltinRegistries().policies.Find(policy);
  if (entry == nullptr) return request;  // MakePolicy names the unknown policy.
  for (const auto& [key, value] : setup.opts) {
    if (which == RunCommand::kSimulate || DeclaresOption(*entry, key)) request.options[key] = value;
  }
  SCHEDKIT_RETURN_IF_ERROR(CheckModulesTaken(*entry, request));
  return request;
}

}  // namespace schedkit::cli
