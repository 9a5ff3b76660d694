// The `schedkit` command. Subcommands are thin: parse, call the library, print.
// The contract is docs/cli.md.
#include <cmath>
#include <cstdio>
#include <optional>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "schedkit/registry.h"
#include "schedkit/run.h"
#include "schedkit/trace.h"

namespace sk = schedkit;

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "schedkit: %s\n", message.c_str());
  return 1;
}

struct SimulateArgs {
  std::string trace, cluster, format = "auto", policy = "tiresias", placement, admission;
  std::vector<std::string> opts;
  std::string compat = "none", out, overhead_table;
  std::optional<double> overhead_s;
  uint64_t seed = 0;
};

sk::Result<std::map<std::string, std::string>> ParseOpts(const std::vector<std::string>& opts) {
  std::map<std::string, std::string> out;
  for (const std::string& o : opts) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      return sk::Status::InvalidArgument("--opt '" + o + "': expected key=value");
    }
    out[o.substr(0, eq)] = o.substr(eq + 1);
  }
  return out;
}

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
    return Fail("--compat '" + a.compat + "': expected none or muri");
  }
  sk::PolicyRequest request;
  request.policy = a.policy;
  request.placement = a.placement;
  request.admission = a.admission;
  request.options = *opts;
  request.seed = a.seed;
  request.compat = a.compat == "muri" ? sk::CompatMode::kMuri : sk::CompatMode::kNone;
  auto overheads = Overheads(a);
  if (!overheads.ok()) return Fail(overheads.status().message());
  sk::SimulatorOptions options;
  options.overheads = *overheads;
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
    std::printf("  %-12s %s\n", e.name.c_str(), e.description.c_str());
    if constexpr (requires { e.default_placement; }) {
      if (!e.default_placement.empty()) {
        std::printf("  %-12s   default placement: %s, admission: %s\n", "",
                    e.default_placement.c_str(), e.default_admission.c_str());
      }
    }
    for (const sk::OptionSpec& o : e.options) {
      std::printf("  %-12s   --opt %s=<%s> (default %s): %s\n", "", o.name.c_str(),
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
  simulate->add_option("--format", sim.format, "trace format: auto, native, muri, gavel, gavel-legacy");
  simulate->add_option("--policy", sim.policy, "policy name (see `schedkit policies`)");
  simulate->add_option("--placement", sim.placement, "placement module (default: the policy's)");
  simulate->add_option("--admission", sim.admission, "admission module (default: the policy's)");
  simulate->add_option("--opt", sim.opts, "policy option key=value (repeatable)");
  simulate->add_option("--compat", sim.compat, "none, or muri to reproduce the Muri simulator");
  simulate->add_option("--seed", sim.seed, "seed for randomised policies");
  simulate->add_option("--out", sim.out, "write jobs.csv, summary.json, timeseries.csv here");
  simulate->add_option("--overhead-table", sim.overhead_table,
                       "restart overheads per model (Muri profile table CSV)");
  simulate->add_option("--overhead-s", sim.overhead_s, "a fixed restart overhead for every job");

  CLI::App* policies = app.add_subcommand("policies", "List policies, placements and admission modules");

  GenerateArgs gen;
  CLI::App* generate = app.add_subcommand("generate", "Write a synthetic trace (native format)");
  generate->add_option("--jobs", gen.config.num_jobs, "number of jobs");
  generate->add_option("--jobs-per-hour", gen.config.jobs_per_hour, "Poisson arrival rate");
  generate->add_option("--durations", gen.durations, "blox (log-uniform) or philly (sampled)");
  generate->add_option("--philly-distribution", gen.config.philly_distribution_path,
                       "Philly (duration_s,num_gpus) CSV");
  generate->add_option("--seed", gen.config.seed, "random seed");
  generate->add_option("--out", gen.out, "output trace file")->required();

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
  if (generate->parsed()) return Generate(gen);
  return 1;
}
