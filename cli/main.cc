// The `schedkit` command. Subcommands are thin: parse, call the library, print.
// The contract is docs/cli.md.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <optional>
#include <thread>
#include <type_traits>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <atomic>
#include <chrono>
#include <csignal>

#include "commands.h"
#include "run_options.h"
#include "version.h"
#include "schedkit/experiment.h"
#include "schedkit/job_source.h"
#include "schedkit/plugin.h"
#include "schedkit/registry.h"
#include "schedkit/run.h"
#include "schedkit/trace.h"
#include "schedkit/trace_stats.h"

namespace sk = schedkit;

namespace {

using sk::cli::AddRunOptions;
using sk::cli::Fail;
using sk::cli::RequestFor;
using sk::cli::ResolveRunArgs;
using sk::cli::RunArgs;
using sk::cli::RunCommand;

// `trace` names the workload (its path); `jobs` is how many it held.
void PrintSummary(const sk::Summary& s, const std::string& policy, const std::string& trace,
                  size_t jobs, const sk::ClusterSpec& cluster) {
  std::printf("policy %s on %s (%zu jobs), cluster %s (%d GPUs)\n", policy.c_str(),
              trace.c_str(), jobs, cluster.source.c_str(), cluster.TotalGpus());
  std::printf("  jobs finished      %lld (rejected %lld, unfinished %lld)\n",
              static_cast<long long>(s.jobs), static_cast<long long>(s.rejected),
              static_cast<long long>(s.unfinished));
  std::printf("  JCT avg / p50 / p95 / p99 (s)   %.3f / %.3f / %.3f / %.3f\n", s.avg_jct_s,
              s.p50_jct_s, s.p95_jct_s, s.p99_jct_s);
  std::printf("  makespan (s)                    %.3f\n", s.makespan_s);
  std::printf("  queueing delay avg / p99.9 (s)  %.3f / %.3f\n", s.avg_queue_s, s.p999_queue_s);
  std::printf("  slowdown avg / p99               %.3f / %.3f\n", s.avg_slowdown, s.p99_slowdown);
  std::printf("  GPU utilisation                 %.4f\n", s.gpu_utilization);
  std::printf("  preemptions                     %lld\n", static_cast<long long>(s.preemptions));
  std::printf("  simulator run time (s)          %.4f (%lld events, %lld decisions)\n", s.wall_s,
              static_cast<long long>(s.events), static_cast<long long>(s.decisions));
}

// The trace (whole, or streamed under --stream) and cluster spec the run options name.
struct RunInputs {
  sk::Trace trace;                        // Empty when streamed.
  std::unique_ptr<sk::JobSource> stream;  // Set when streamed.
  sk::ClusterSpec cluster;
  sk::SimulatorOptions engine;  // The setup's, with the membership changes.
};

sk::Result<RunInputs> LoadRunInputs(const sk::cli::RunSetup& setup, bool stream) {
  RunInputs in;
  if (stream) {
    auto source = sk::StreamTrace(setup.trace_path, setup.trace_options);
    if (!source.ok()) return source.status();
    in.stream = std::move(source).value();
  } else {
    auto trace = sk::LoadTrace(setup.trace_path, setup.trace_options);
    if (!trace.ok()) return trace.status();
    in.trace = std::move(trace).value();
  }
  auto cluster = sk::LoadClusterSpec(setup.cluster_path);
  if (!cluster.ok()) return cluster.status();
  in.cluster = std::move(cluster).value();
  in.engine = setup.engine;
  if (!setup.membership_path.empty()) {
    auto changes = sk::LoadMembership(setup.membership_path, in.cluster);
    if (!changes.ok()) return changes.status();
    in.engine.membership = std::move(changes).value();
  }
  return in;
}

// Warns on stderr when the trace brings more work per second than the cluster can do:
// then queues only grow while jobs arrive, and results measure the backlog.
void WarnIfOverCapacity(const char* command, const RunInputs& in) {
  const double load = sk::ComputeTraceStats(in.trace).OfferedLoad(in.cluster.TotalGpus());
  if (!(load > 1)) return;
  std::fprintf(stderr,
               "schedkit %s: warning: the trace offers %.2fx the GPU capacity of %s (%d GPUs) "
               "while jobs arrive, so queues can only grow (schedkit trace stats shows why)\n",
               command, load, in.cluster.source.c_str(), in.cluster.TotalGpus());
}

// DIR/jobs.csv, timeseries.csv and summary.json of one run (docs/outputs.md).
sk::Status WriteRunOutputs(const std::string& dir, const sk::RunOutput& run,
                           const sk::PolicyRequest& request, const sk::cli::RunSetup& setup,
                           const RunArgs& a) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return sk::Status::IoError(dir + ": cannot create directory: " + ec.message());
  const auto run_block =
      sk::SummaryRunBlock(request, setup.trace_path, setup.cluster_path, a.runtime_factor,
                          sk::BuiltinRegistries(), setup.engine.measured);
  SCHEDKIT_RETURN_IF_ERROR(sk::WriteJobsCsv(*run.recorder, dir + "/jobs.csv"));
  SCHEDKIT_RETURN_IF_ERROR(sk::WriteTimeSeriesCsv(*run.recorder, dir + "/timeseries.csv"));
  SCHEDKIT_RETURN_IF_ERROR(run.policy->WriteOutputs(dir));
  return sk::WriteSummaryJson(run.summary, run_block, dir + "/summary.json");
}

int Simulate(const RunArgs& a) {
  auto setup = ResolveRunArgs(RunCommand::kSimulate, a);
  if (!setup.ok()) return Fail(setup.status().message());
  const std::string& policy = setup->policies.front();
  if (setup->compat == sk::CompatMode::kLucid) {
    return sk::cli::RunLucidCompat(setup->trace_path, setup->trace_options, {policy}, a.opts,
                                   a.out);
  }
  auto request = RequestFor(RunCommand::kSimulate, a, *setup, policy);
  if (!request.ok()) return Fail(request.status().message());
  if (!a.vc_config.empty()) {
    const int threads =
        a.threads > 0 ? a.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    return sk::cli::RunVirtualClusterSimulation(setup->trace_path, setup->trace_options,
                                                a.vc_config, *request, setup->engine, threads,
                                                a.out);
  }
  auto inputs = LoadRunInputs(*setup, a.stream);
  if (!inputs.ok()) return Fail(inputs.status().message());
  // A streamed trace is not known ahead, so its offered load is not either.
  if (!a.stream) WarnIfOverCapacity("simulate", *inputs);
  auto run = a.stream ? sk::RunSimulation(*inputs->stream, inputs->cluster, *request, inputs->engine)
                      : sk::RunSimulation(inputs->trace, inputs->cluster, *request, inputs->engine);
  if (!run.ok()) return Fail(run.status().message());
  if (a.stream) {
    PrintSummary(run->summary, policy, setup->trace_path, run->recorder->num_jobs(),
                 inputs->cluster);
  } else {
    PrintSummary(run->summary, policy, inputs->trace.source, inputs->trace.jobs.size(),
                 inputs->cluster);
  }
  if (a.out.empty()) return 0;
  const sk::Status written = WriteRunOutputs(a.out, *run, *request, *setup, a);
  return written.ok() ? 0 : Fail(written.message());
}

// "placement: yarn (default), admission: none (admits jobs itself)".
std::string PolicyModules(const sk::PolicyRegistry::Entry& e) {
  auto slot = [](const char* kind, bool taken, const std::string& fallback, const char* verb) {
    return std::string(kind) + ": " +
           (taken ? fallback + " (default)" : std::string("none (") + verb + " jobs itself)");
  };
  return slot("placement", e.takes_placement, e.default_placement, "places") + ", " +
         slot("admission", e.takes_admission, e.default_admission, "admits");
}

// " (plugin PATH)" for a module of `kind` that a plugin registered; "" for a built-in.
std::string Origin(std::vector<std::string> sk::PluginInfo::*kind, const std::string& name) {
  const sk::PluginInfo* p = sk::PluginOf(kind, name);
  return p != nullptr ? " (plugin " + p->path + ")" : "";
}

template <typename R>
void PrintEntries(const char* heading, const R& registry,
                  std::vector<std::string> sk::PluginInfo::*kind) {
  std::printf("%s\n", heading);
  for (const auto& e : registry.entries()) {
    std::printf("  %-17s %s%s\n", e.name.c_str(), e.description.c_str(),
                Origin(kind, e.name).c_str());
    if constexpr (std::is_same_v<R, sk::PolicyRegistry>) {
      std::printf("  %-17s   %s\n", "", PolicyModules(e).c_str());
    }
    for (const sk::OptionSpec& o : e.options) {
      std::printf("  %-17s   --opt %s=<%s> (default %s): %s\n", "", o.name.c_str(),
                  sk::OptionSpec::TypeName(o.type), o.default_value.c_str(), o.help.c_str());
    }
  }
}

// One registry as JSON: [{name, description, [placement, admission,] options: [...],
// [plugin]}], what scripts/docs_listings.py turns into the docs' tables.
template <typename R>
nlohmann::ordered_json EntriesJson(const R& registry,
                                   std::vector<std::string> sk::PluginInfo::*kind) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& e : registry.entries()) {
    nlohmann::ordered_json j;
    j["name"] = e.name;
    j["description"] = e.description;
    if constexpr (std::is_same_v<R, sk::PolicyRegistry>) {
      // null: the policy places (admits) jobs itself.
      j["placement"] = e.takes_placement ? nlohmann::ordered_json(e.default_placement) : nullptr;
      j["admission"] = e.takes_admission ? nlohmann::ordered_json(e.default_admission) : nullptr;
    }
    j["options"] = nlohmann::ordered_json::array();
    for (const sk::OptionSpec& o : e.options) {
      j["options"].push_back({{"name", o.name},
                              {"type", sk::OptionSpec::TypeName(o.type)},
                              {"default", o.default_value},
                              {"help", o.help}});
    }
    if (const sk::PluginInfo* p = sk::PluginOf(kind, e.name)) j["plugin"] = p->path;
    out.push_back(std::move(j));
  }
  return out;
}

int Policies(bool json) {
  const sk::Registries& r = sk::BuiltinRegistries();
  if (json) {
    nlohmann::ordered_json j;
    j["policies"] = EntriesJson(r.policies, &sk::PluginInfo::policies);
    j["placements"] = EntriesJson(r.placements, &sk::PluginInfo::placements);
    j["admissions"] = EntriesJson(r.admissions, &sk::PluginInfo::admissions);
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  PrintEntries("Policies (--policy NAME):", r.policies, &sk::PluginInfo::policies);
  PrintEntries("\nPlacements (--placement NAME; options as --opt placement.KEY=VALUE):",
               r.placements, &sk::PluginInfo::placements);
  PrintEntries("\nAdmission (--admission NAME; options as --opt admission.KEY=VALUE):",
               r.admissions, &sk::PluginInfo::admissions);
  return 0;
}

int Compare(const RunArgs& a) {
  auto setup = ResolveRunArgs(RunCommand::kCompare, a);
  if (!setup.ok()) return Fail(setup.status().message());
  const std::vector<std::string>& names = setup->policies;
  if (setup->compat == sk::CompatMode::kLucid) {
    return sk::cli::RunLucidCompat(setup->trace_path, setup->trace_options, names, a.opts, a.out);
  }
  std::vector<sk::PolicyRequest> requests;
  for (const std::string& name : names) {
    auto request = RequestFor(RunCommand::kCompare, a, *setup, name);
    if (!request.ok()) return Fail(request.status().message());
    // Build each once now, so that a bad option fails before any run.
    auto made = sk::MakePolicy(*request);
    if (!made.ok()) return Fail(made.status().message());
    requests.push_back(std::move(request).value());
  }
  auto inputs = LoadRunInputs(*setup, /*stream=*/false);
  if (!inputs.ok()) return Fail(inputs.status().message());
  WarnIfOverCapacity("compare", *inputs);
  const auto start = std::chrono::steady_clock::now();
  auto results = sk::RunAll(inputs->trace, inputs->cluster, requests, inputs->engine, a.threads);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<sk::Summary> summaries;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) return Fail(names[i] + ": " + results[i].status().message());
    summaries.push_back(results[i]->summary);
  }
  std::printf("%zu policies on %s (%zu jobs), cluster %s (%d GPUs), %.3f s wall\n", names.size(),
              setup->trace_path.c_str(), inputs->trace.jobs.size(), setup->cluster_path.c_str(),
              inputs->cluster.TotalGpus(), wall);
  std::printf("%s", sk::FormatComparison(names, summaries).c_str());
  if (a.out.empty()) return 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const sk::Status st = WriteRunOutputs(a.out + "/" + names[i], *results[i], requests[i], *setup, a);
    if (!st.ok()) return Fail(st.message());
  }
  const sk::Status st = sk::WriteComparison(a.out, names, summaries);
  return st.ok() ? 0 : Fail(st.message());
}

std::atomic<bool> g_stop{false};
extern "C" void OnInterrupt(int) { g_stop.store(true); }

struct SweepArgs {
  std::string config, out, shard = "0/1";
  int threads = 0;
  bool slurm = false;
  int slurm_tasks = 4;
  std::string sbatch_args;
};

int SweepOnSlurm(const SweepArgs& a, const sk::SweepConfig& config) {
  sk::SlurmSweepOptions options;
  options.config_path = a.config;
  options.out_dir = a.out.empty() ? "sweep-" + config.name : a.out;
  options.schedkit = std::filesystem::read_symlink("/proc/self/exe").string();
  options.tasks = a.slurm_tasks;
  options.cpus_per_task = a.threads > 0 ? a.threads : 1;
  options.sbatch_args = a.sbatch_args;
  options.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  auto report = sk::RunSweepOnSlurm(config, options);
  if (!report.ok()) return Fail(report.status().message());
  std::printf("sweep %s on Slurm (job %s): %zu of %zu runs finished\n", config.name.c_str(),
              report->job_id.c_str(), report->finished, report->total);
  std::printf("results: %s/results.csv\n", options.out_dir.c_str());
  if (report->finished < report->total) {
    return Fail("some runs did not finish; see " + options.out_dir + "/slurm/task-*.out");
  }
  return 0;
}

int Sweep(const SweepArgs& a) {
  auto config = sk::LoadSweepConfig(a.config);
  if (!config.ok()) return Fail(config.status().message());
  if (a.slurm && !sk::cli::PluginArgs().empty()) {
    return Fail("--plugin with --slurm: name the plugins in the sweep file's `plugins` key, "
                "which every task loads");
  }
  if (a.slurm && !sk::cli::PythonArgs().empty()) {
    return Fail("--python with --slurm: name the Python policies in the sweep file's `python` "
                "key, which every task loads");
  }
  if (a.slurm) return SweepOnSlurm(a, *config);
  auto shard = sk::ParseShard(a.shard);
  if (!shard.ok()) return Fail(shard.status().message());
  sk::SweepOptions options;
  options.out_dir = a.out.empty() ? "sweep-" + config->name : a.out;
  options.threads = a.threads;
  options.shard = shard->first;
  options.num_shards = shard->second;
  options.stop = &g_stop;
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  std::error_code ec;
  std::filesystem::create_directories(options.out_dir, ec);
  if (ec) return Fail(options.out_dir + ": " + ec.message());
  const bool tty = isatty(STDERR_FILENO);
  const auto start = std::chrono::steady_clock::now();
  size_t first_done = SIZE_MAX;
  options.progress = [&](size_t done, size_t total, const sk::SweepRun& run) {
    if (first_done == SIZE_MAX) first_done = done - 1;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double rate = (done - first_done) / std::max(elapsed, 1e-9);
    const double eta = rate > 0 ? (total - done) / rate : 0;
    const int width = 30, filled = static_cast<int>(width * done / std::max<size_t>(total, 1));
    std::fprintf(stderr, "%s[%s%s] %zu/%zu runs, %.0f s elapsed, ETA %.0f s  %s%s",
                 tty ? "\r" : "", std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), done, total, elapsed, eta,
                 tty ? "" : run.id.c_str(), tty ? "" : "\n");
  };
  auto report = sk::RunSweep(*config, options);
  if (tty) std::fprintf(stderr, "\n");
  if (!report.ok()) return Fail(report.status().message());
  std::printf("sweep %s: %zu runs in shard %d/%d: %zu ran, %zu already done, %zu failed%s\n",
              config->name.c_str(), report->total, options.shard, options.num_shards, report->ran,
              report->skipped, report->failed, report->interrupted ? ", interrupted" : "");
  if (report->changed > 0) {
    std::printf("%zu finished runs were defined differently (the config changed) and were run again\n",
                report->changed);
  }
  std::printf("results: %s/results.csv\n", options.out_dir.c_str());
  for (const std::string& e : report->errors) std::fprintf(stderr, "schedkit: %s\n", e.c_str());
  if (report->interrupted) {
    std::fprintf(stderr, "schedkit: interrupted; finished runs are kept, run again to resume\n");
    return 130;
  }
  return report->failed == 0 ? 0 : 1;
}

}  // namespace

namespace schedkit::cli {

int ExecPythonModule(const std::string& module, const std::vector<std::string>& args) {
  const char* dir = std::getenv("SCHEDKIT_PYTHON_DIR");
  const std::string python_dir = dir != nullptr ? dir : SCHEDKIT_DEFAULT_PYTHON_DIR;
  const char* old_path = std::getenv("PYTHONPATH");
  const std::string path = python_dir + (old_path != nullptr ? ":" + std::string(old_path) : "");
  setenv("PYTHONPATH", path.c_str(), 1);
  std::vector<std::string> argv_strings = {"/usr/bin/python3", "-m", module};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);  // What this process printed comes before what Python prints.
  execv("/usr/bin/python3", argv.data());
  return Fail(std::string("cannot run /usr/bin/python3: ") + std::strerror(errno));
}

}  // namespace schedkit::cli

namespace {

// `schedkit report` is the Python package python/schedkit_report (matplotlib), run with
// Debian's interpreter; this only finds it and hands over the arguments.
int Report(const std::vector<std::string>& args) {
  return sk::cli::ExecPythonModule("schedkit_report", args);
}

struct GenerateArgs {
  sk::GeneratorConfig config;
  std::string durations = "blox", out;
};

int Generate(GenerateArgs a) {
  sk::Status named = sk::SetGeneratorDurations(a.durations, sk::DataDir(), &a.config);
  if (!named.ok()) return Fail("--durations " + named.message());
  sk::Result<sk::Trace> trace = sk::GenerateTrace(a.config);
  if (!trace.ok()) return Fail(trace.status().message());
  sk::Status st = sk::WriteNativeTrace(*trace, a.out);
  if (!st.ok()) return Fail(st.message());
  std::printf("wrote %zu jobs to %s\n", trace->jobs.size(), a.out.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"schedkit: design, evaluate and run cluster scheduling policies"};
  app.require_subcommand(1);

  app.set_version_flag("--version", sk::cli::VersionString(), "print the version and exit");

  RunArgs sim;
  CLI::App* simulate = app.add_subcommand("simulate", "Simulate a policy on a trace and cluster");
  AddRunOptions(RunCommand::kSimulate, simulate, &sim);
  sk::cli::AddPluginOption(simulate);

  CLI::App* policies = app.add_subcommand("policies", "List policies, placements and admission modules");
  bool policies_json = false;
  policies->add_flag("--json", policies_json,
                     "print the registries as JSON (name, description, default modules, options)");
  sk::cli::AddPluginOption(policies);

  RunArgs cmp;
  CLI::App* compare = app.add_subcommand("compare", "Run several policies on one trace, side by side");
  AddRunOptions(RunCommand::kCompare, compare, &cmp);
  sk::cli::AddPluginOption(compare);

  CLI::App* report = app.add_subcommand("report", "Figures and an HTML report of a sweep (docs/report.md)");
  report->prefix_command();  // Everything after `report` goes to the Python tool, in order.
  report->set_help_flag();

  SweepArgs swp;
  CLI::App* sweep = app.add_subcommand("sweep", "Run a grid of experiments from a TOML file");
  sweep->add_option("config", swp.config, "sweep file (docs/sweep.md)")->required();
  sweep->add_option("--out", swp.out, "output folder (default: sweep-<name>)");
  sweep->add_option("--shard", swp.shard, "i/n: run only grid points with index % n == i");
  sweep->add_option("--threads", swp.threads, "threads (default: one per core; per task with --slurm)");
  sweep->add_flag("--slurm", swp.slurm, "submit the grid as a Slurm job array and merge when done");
  sweep->add_option("--slurm-tasks", swp.slurm_tasks, "array size with --slurm (default 4)");
  sweep->add_option("--sbatch-args", swp.sbatch_args, "extra sbatch arguments with --slurm");
  sk::cli::AddPluginOption(sweep);  // Besides the config's own `plugins` key.

  GenerateArgs gen;
  CLI::App* generate = app.add_subcommand("generate", "Write a synthetic trace (native format)");
  generate->add_option("--jobs", gen.config.num_jobs, "number of jobs");
  generate->add_option("--jobs-per-hour", gen.config.jobs_per_hour, "Poisson arrival rate");
  generate->add_option("--durations", gen.durations,
                       "blox (log-uniform), philly (sampled), gavel (Gavel's generator: 1 GPU, "
                       "steps and per-type speeds from the throughput table) or gavel-multi "
                       "(the same, scale factors 1/2/4/8), blox-philly (blox durations, 1 GPU "
                       "each) or dual-load (Blox's base stream plus a 4x burst, 1 GPU each)");
  generate->add_option("--throughputs", gen.config.gavel_throughputs_path,
                       "Gavel throughput table for --durations gavel (default: <data "
                       "dir>/gavel/simulation_throughputs.json)");
  generate->add_option("--philly-distribution", gen.config.philly_distribution_path,
                       "Philly (duration_s,num_gpus) CSV");
  generate->add_option("--seed", gen.config.seed, "random seed");
  generate->add_option("--max-gpus", gen.config.max_gpus,
                       "make every job elastic up to this many GPUs (max_gpus column; 0 = rigid, "
                       "the default)");
  generate->add_option("--out", gen.out, "output trace file")->required();

  // Areas with their own file (cli/<area>_commands.cc), one line each.
  std::vector<sk::cli::Subcommand> area_commands;
  sk::cli::AddDagCommands(app, area_commands);
  sk::cli::AddFgdCommands(app, area_commands);
  sk::cli::AddGavelCommands(app, area_commands);
  sk::cli::AddTraceCommands(app, area_commands);
  sk::cli::AddPredictCommands(app, area_commands);
  if (sk::Status st = sk::cli::AddRuntimeCommands(app, area_commands, argc, argv); !st.ok()) {
    return Fail(st.message());
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Fail(std::string(e.what()) + " (see schedkit --help)");
  }
  if (sk::Status st = sk::cli::LoadPluginArgs(); !st.ok()) return Fail(st.message());
  if (simulate->parsed()) return Simulate(sim);
  if (policies->parsed()) return Policies(policies_json);
  if (compare->parsed()) return Compare(cmp);
  if (sweep->parsed()) return Sweep(swp);
  if (report->parsed()) return Report(report->remaining());
  if (generate->parsed()) return Generate(gen);
  for (const sk::cli::Subcommand& c : area_commands) {
    if (c.command->parsed()) return c.run();
  }
  return 1;
}
