// The `schedkit` command. Subcommands are thin: parse, call the library, print.
// The contract is docs/cli.md.
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <optional>
#include <thread>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>

#include "commands.h"
#include "schedkit/experiment.h"
#include "schedkit/registry.h"
#include "schedkit/run.h"
#include "schedkit/trace.h"

namespace sk = schedkit;

namespace {

using sk::cli::Fail;
using sk::cli::ParseOpts;

struct SimulateArgs {
  std::string trace, cluster, format = "auto", policy = "tiresias", placement, admission;
  std::vector<std::string> opts;
  std::string compat = "none", out, overhead_table, vc_config;
  int threads = 0;
  std::optional<double> overhead_s;
  std::optional<double> runtime_factor;
  uint64_t seed = 0;
};

sk::Result<sk::RestartOverheads> Overheads(const SimulateArgs& a) {
  if (a.overhead_s && !a.overhead_table.empty()) {
    return sk::Status::InvalidArgument("give --overhead-s or --overhead-table, not both");
  }
  if (a.overhead_s) {
    if (!std::isfinite(*a.overhead_s) || *a.overhead_s < 0) {
      return sk::Status::InvalidArgument("--overhead-s must be a finite number >= 0");
    }
    return sk::RestartOverheads(*a.overhead_s);
  }
  if (!a.overhead_table.empty()) return sk::RestartOverheads::Load(a.overhead_table, 10.0);
  return sk::DefaultRestartOverheads();
}

// The engine options both `simulate` and `compare` take: restart overheads and the
// solo-runtime factor.
sk::Result<sk::SimulatorOptions> EngineOptions(const SimulateArgs& a) {
  auto overheads = Overheads(a);
  if (!overheads.ok()) return overheads.status();
  sk::SimulatorOptions options;
  options.overheads = *overheads;
  if (a.runtime_factor) {
    if (!std::isfinite(*a.runtime_factor) || *a.runtime_factor <= 0) {
      return sk::Status::InvalidArgument("--runtime-factor must be a finite number > 0");
    }
    options.runtime_factor = *a.runtime_factor;
  }
  return options;
}

void PrintSummary(const sk::Summary& s, const std::string& policy, const sk::Trace& trace,
                  const sk::ClusterSpec& cluster) {
  std::printf("policy %s on %s (%zu jobs), cluster %s (%d GPUs)\n", policy.c_str(),
              trace.source.c_str(), trace.jobs.size(), cluster.source.c_str(),
              cluster.TotalGpus());
  std::printf("  jobs finished      %lld (rejected %lld, unfinished %lld)\n",
              static_cast<long long>(s.jobs), static_cast<long long>(s.rejected),
              static_cast<long long>(s.unfinished));
  std::printf("  JCT avg / p50 / p95 / p99 (s)   %.3f / %.3f / %.3f / %.3f\n", s.avg_jct_s,
              s.p50_jct_s, s.p95_jct_s, s.p99_jct_s);
  std::printf("  makespan (s)                    %.3f\n", s.makespan_s);
  std::printf("  queueing delay avg / p99.9 (s)  %.3f / %.3f\n", s.avg_queue_s, s.p999_queue_s);
  std::printf("  GPU utilisation                 %.4f\n", s.gpu_utilization);
  std::printf("  preemptions                     %lld\n", static_cast<long long>(s.preemptions));
  std::printf("  simulator run time (s)          %.4f (%lld events, %lld decisions)\n", s.wall_s,
              static_cast<long long>(s.events), static_cast<long long>(s.decisions));
}

int Simulate(const SimulateArgs& a) {
  if (a.compat == "lucid") {
    if (a.trace.empty()) return Fail("--compat lucid: give --trace (a Lucid/Helios log)");
    return sk::cli::RunLucidCompat(a.trace, a.format, {a.policy}, a.opts, a.out);
  }
  sk::Result<sk::TraceFormat> format = sk::ParseTraceFormat(a.format);
  if (!format.ok()) return Fail(format.status().message());
  const std::string trace_path =
      a.trace.empty() ? sk::DataDir() + "/traces/muri_trace3.csv" : a.trace;
  const std::string cluster_path =
      a.cluster.empty() ? sk::DataDir() + "/clusters/muri_n8g8.csv" : a.cluster;
  sk::TraceOptions trace_options;
  trace_options.format = *format;
  sk::Result<sk::Trace> trace = sk::LoadTrace(trace_path, trace_options);
  if (!trace.ok()) return Fail(trace.status().message());
  sk::Result<sk::ClusterSpec> cluster = sk::LoadClusterSpec(cluster_path);
  if (!cluster.ok()) return Fail(cluster.status().message());
  auto opts = ParseOpts(a.opts);
  if (!opts.ok()) return Fail(opts.status().message());
  if (a.compat != "none" && a.compat != "muri") {
    return Fail("--compat '" + a.compat + "': expected none, muri or lucid");
  }
  sk::PolicyRequest request;
  request.policy = a.policy;
  request.placement = a.placement;
  request.admission = a.admission;
  request.options = *opts;
  request.seed = a.seed;
  request.compat = a.compat == "muri" ? sk::CompatMode::kMuri : sk::CompatMode::kNone;
  auto engine_options = EngineOptions(a);
  if (!engine_options.ok()) return Fail(engine_options.status().message());
  const sk::SimulatorOptions& options = *engine_options;
  if (!a.vc_config.empty()) {
    const int threads =
        a.threads > 0 ? a.threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    return sk::cli::RunVirtualClusterSimulation(trace_path, a.format, a.vc_config, request, options,
                                                threads, a.out);
  }
  auto run = sk::RunSimulation(*trace, *cluster, request, options);
  if (!run.ok()) return Fail(run.status().message());
  PrintSummary(run->summary, a.policy, *trace, *cluster);
  if (a.out.empty()) return 0;
  std::error_code ec;
  std::filesystem::create_directories(a.out, ec);
  if (ec) return Fail(a.out + ": cannot create directory: " + ec.message());
  const auto* entry = sk::BuiltinRegistries().policies.Find(a.policy);
  std::vector<std::pair<std::string, std::string>> context = {
      {"policy", a.policy},
      {"placement", a.placement.empty() ? entry->default_placement : a.placement},
      {"admission", a.admission.empty() ? entry->default_admission : a.admission},
      {"compat", a.compat},
      {"trace", trace_path},    {"cluster", cluster_path},
      {"seed", std::to_string(a.seed)}};
  if (a.runtime_factor) {
    std::ostringstream factor;
    factor << *a.runtime_factor;
    context.emplace_back("runtime_factor", factor.str());
  }
  for (const auto& [k, v] : *opts) context.emplace_back("opt." + k, v);
  for (const sk::Status& st :
       {sk::WriteJobsCsv(*run->recorder, a.out + "/jobs.csv"),
        sk::WriteTimeSeriesCsv(*run->recorder, a.out + "/timeseries.csv"),
        sk::WriteSummaryJson(run->summary, context, a.out + "/summary.json")}) {
    if (!st.ok()) return Fail(st.message());
  }
  return 0;
}

template <typename R>
void PrintEntries(const char* heading, const R& registry) {
  std::printf("%s\n", heading);
  for (const auto& e : registry.entries()) {
    std::printf("  %-17s %s\n", e.name.c_str(), e.description.c_str());
    if constexpr (requires { e.default_placement; }) {
      if (!e.default_placement.empty()) {
        std::printf("  %-17s   default placement: %s, admission: %s\n", "",
                    e.default_placement.c_str(), e.default_admission.c_str());
      }
    }
    for (const sk::OptionSpec& o : e.options) {
      std::printf("  %-17s   --opt %s=<%s> (default %s): %s\n", "", o.name.c_str(),
                  sk::OptionSpec::TypeName(o.type), o.default_value.c_str(), o.help.c_str());
    }
  }
}

int Policies() {
  const sk::Registries& r = sk::BuiltinRegistries();
  PrintEntries("Policies (--policy NAME):", r.policies);
  PrintEntries("\nPlacements (--placement NAME; options as --opt placement.KEY=VALUE):",
               r.placements);
  PrintEntries("\nAdmission (--admission NAME; options as --opt admission.KEY=VALUE):",
               r.admissions);
  return 0;
}

struct CompareArgs {
  SimulateArgs base;
  std::string policies = "fifo,sjf,srtf,srsf,las,tiresias";
  int threads = 0;
};

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

int Compare(const CompareArgs& a) {
  if (a.base.compat == "lucid") {
    if (a.base.trace.empty()) return Fail("--compat lucid: give --trace (a Lucid/Helios log)");
    // The default list names clean-model policies; under compat lucid it means Lucid's five.
    const std::string policies =
        a.policies == CompareArgs{}.policies ? "fifo,sjf,qssf,tiresias,lucid" : a.policies;
    return sk::cli::RunLucidCompat(a.base.trace, a.base.format, SplitCommas(policies),
                                   a.base.opts, a.base.out);
  }
  if (!a.base.out.empty()) return Fail("compare: --out is only for --compat lucid");
  sk::TraceOptions trace_options;
  auto format = sk::ParseTraceFormat(a.base.format);
  if (!format.ok()) return Fail(format.status().message());
  trace_options.format = *format;
  const std::string trace_path =
      a.base.trace.empty() ? sk::DataDir() + "/traces/muri_trace3.csv" : a.base.trace;
  const std::string cluster_path =
      a.base.cluster.empty() ? sk::DataDir() + "/clusters/muri_n8g8.csv" : a.base.cluster;
  auto trace = sk::LoadTrace(trace_path, trace_options);
  if (!trace.ok()) return Fail(trace.status().message());
  auto cluster = sk::LoadClusterSpec(cluster_path);
  if (!cluster.ok()) return Fail(cluster.status().message());
  auto opts = ParseOpts(a.base.opts);
  if (!opts.ok()) return Fail(opts.status().message());
  if (a.base.compat != "none" && a.base.compat != "muri") {
    return Fail("--compat '" + a.base.compat + "': expected none or muri");
  }
  auto engine_options = EngineOptions(a.base);
  if (!engine_options.ok()) return Fail(engine_options.status().message());
  const std::vector<std::string> names = SplitCommas(a.policies);
  if (names.empty()) return Fail("--policies: give at least one policy");
  std::vector<sk::PolicyRequest> requests;
  for (const std::string& name : names) {
    sk::PolicyRequest r;
    r.policy = name;
    r.seed = a.base.seed;
    r.compat = a.base.compat == "muri" ? sk::CompatMode::kMuri : sk::CompatMode::kNone;
    // Shared --opt keys go to every policy that declares them.
    const auto* entry = sk::BuiltinRegistries().policies.Find(name);
    if (entry == nullptr) return Fail("unknown policy '" + name + "'");
    for (const auto& [k, v] : *opts) {
      const bool routed = k.rfind("placement.", 0) == 0 || k.rfind("admission.", 0) == 0;
      bool declared = routed;
      for (const auto& o : entry->options) declared = declared || o.name == k;
      if (declared) r.options[k] = v;
    }
    r.placement = a.base.placement;
    r.admission = a.base.admission;
    requests.push_back(std::move(r));
  }
  const auto start = std::chrono::steady_clock::now();
  auto results = sk::RunAll(*trace, *cluster, requests, *engine_options, a.threads);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<sk::Summary> summaries;
  for (size_t i = 0; i < results.size(); ++i) {
    if (!results[i].ok()) return Fail(names[i] + ": " + results[i].status().message());
    summaries.push_back(results[i]->summary);
  }
  std::printf("%zu policies on %s (%zu jobs), cluster %s (%d GPUs), %.3f s wall\n", names.size(),
              trace_path.c_str(), trace->jobs.size(), cluster_path.c_str(), cluster->TotalGpus(),
              wall);
  std::printf("%s", sk::FormatComparison(names, summaries).c_str());
  return 0;
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

// `schedkit report` is the Python package python/schedkit_report (matplotlib), run with
// Debian's interpreter; this only finds it and hands over the arguments.
int Report(const std::vector<std::string>& args) {
  const char* dir = std::getenv("SCHEDKIT_PYTHON_DIR");
  const std::string python_dir = dir != nullptr ? dir : SCHEDKIT_DEFAULT_PYTHON_DIR;
  const char* old_path = std::getenv("PYTHONPATH");
  const std::string path = python_dir + (old_path != nullptr ? ":" + std::string(old_path) : "");
  setenv("PYTHONPATH", path.c_str(), 1);
  std::vector<std::string> argv_strings = {"/usr/bin/python3", "-m", "schedkit_report"};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv("/usr/bin/python3", argv.data());
  return Fail(std::string("cannot run /usr/bin/python3: ") + std::strerror(errno));
}

struct GenerateArgs {
  sk::GeneratorConfig config;
  std::string durations = "blox", out;
};

int Generate(GenerateArgs a) {
  if (a.durations == "philly") {
    a.config.durations = sk::GeneratorConfig::Durations::kPhilly;
    if (a.config.philly_distribution_path.empty()) {
      a.config.philly_distribution_path = sk::DataDir() + "/gavel/philly_job_distribution.csv";
    }
  } else if (a.durations != "blox") {
    return Fail("--durations '" + a.durations + "': expected blox or philly");
  }
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

  SimulateArgs sim;
  CLI::App* simulate = app.add_subcommand("simulate", "Simulate a policy on a trace and cluster");
  simulate->add_option("--trace", sim.trace, "trace file (default: the shipped Muri trace3)");
  simulate->add_option("--cluster", sim.cluster, "cluster spec (default: the shipped 8x8-GPU spec)");
  simulate->add_option("--format", sim.format, "trace format: auto, native, muri, gavel, gavel-legacy, lucid");
  simulate->add_option("--policy", sim.policy, "policy name (see `schedkit policies`)");
  simulate->add_option("--placement", sim.placement, "placement module (default: the policy's)");
  simulate->add_option("--admission", sim.admission, "admission module (default: the policy's)");
  simulate->add_option("--opt", sim.opts, "policy option key=value (repeatable)");
  simulate->add_option("--compat", sim.compat, "none, muri or lucid to reproduce the Muri / Lucid simulator");
  simulate->add_option("--seed", sim.seed, "seed for randomised policies");
  simulate->add_option("--out", sim.out, "write jobs.csv, summary.json, timeseries.csv here");
  simulate->add_option("--overhead-table", sim.overhead_table,
                       "restart overheads per model (Muri profile table CSV)");
  simulate->add_option("--overhead-s", sim.overhead_s, "a fixed restart overhead for every job");
  simulate->add_option("--runtime-factor", sim.runtime_factor,
                       "solo runtime multiplier (default: 1.015 under --compat muri, else 1)");
  simulate->add_option("--vc-config", sim.vc_config,
                       "virtual clusters (Lucid vc_config.csv): one simulation per VC, merged");
  simulate->add_option("--threads", sim.threads, "with --vc-config: VCs at a time (default: cores)");

  CLI::App* policies = app.add_subcommand("policies", "List policies, placements and admission modules");

  CompareArgs cmp;
  CLI::App* compare = app.add_subcommand("compare", "Run several policies on one trace, side by side");
  compare->add_option("--trace", cmp.base.trace, "trace file (default: the shipped Muri trace3)");
  compare->add_option("--cluster", cmp.base.cluster, "cluster spec (default: the shipped 8x8-GPU spec)");
  compare->add_option("--format", cmp.base.format, "trace format");
  compare->add_option("--policies", cmp.policies, "comma-separated policy names");
  compare->add_option("--placement", cmp.base.placement, "placement module for every policy");
  compare->add_option("--admission", cmp.base.admission, "admission module for every policy");
  compare->add_option("--opt", cmp.base.opts, "key=value, given to each policy that has the option");
  compare->add_option("--compat", cmp.base.compat, "none, muri or lucid");
  compare->add_option("--seed", cmp.base.seed, "seed for randomised policies");
  compare->add_option("--overhead-table", cmp.base.overhead_table, "restart overheads table");
  compare->add_option("--overhead-s", cmp.base.overhead_s, "a fixed restart overhead");
  compare->add_option("--runtime-factor", cmp.base.runtime_factor,
                      "solo runtime multiplier (default: 1.015 under --compat muri, else 1)");
  compare->add_option("--threads", cmp.threads, "threads (default: one per core)");
  compare->add_option("--out", cmp.base.out, "with --compat lucid: write DIR/<policy>/jobs.csv, vcs.csv");

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

  GenerateArgs gen;
  CLI::App* generate = app.add_subcommand("generate", "Write a synthetic trace (native format)");
  generate->add_option("--jobs", gen.config.num_jobs, "number of jobs");
  generate->add_option("--jobs-per-hour", gen.config.jobs_per_hour, "Poisson arrival rate");
  generate->add_option("--durations", gen.durations, "blox (log-uniform) or philly (sampled)");
  generate->add_option("--philly-distribution", gen.config.philly_distribution_path,
                       "Philly (duration_s,num_gpus) CSV");
  generate->add_option("--seed", gen.config.seed, "random seed");
  generate->add_option("--out", gen.out, "output trace file")->required();

  // Areas with their own file (cli/<area>_commands.cc), one line each.
  std::vector<sk::cli::Subcommand> area_commands;
  sk::cli::AddDagCommands(app, area_commands);
  sk::cli::AddPredictCommands(app, area_commands);
  sk::cli::AddRuntimeCommands(app, area_commands);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Fail(std::string(e.what()) + " (see schedkit --help)");
  }
  if (simulate->parsed()) return Simulate(sim);
  if (policies->parsed()) return Policies();
  if (compare->parsed()) return Compare(cmp);
  if (sweep->parsed()) return Sweep(swp);
  if (report->parsed()) return Report(report->remaining());
  if (generate->parsed()) return Generate(gen);
  for (const sk::cli::Subcommand& c : area_commands) {
    if (c.command->parsed()) return c.run();
  }
  return 1;
}
