// `schedkit trace stats TRACE [--format F] [--cluster C]`: what a trace asks of a cluster.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "schedkit/cluster.h"
#include "schedkit/trace_stats.h"

namespace schedkit::cli {
namespace {

struct TraceStatsArgs {
  std::string trace, format = "auto", cluster;
};

int Stats(const TraceStatsArgs& a) {
  auto format = ParseTraceFormat(a.format);
  if (format.ok() && *format == TraceFormat::kAuto) format = DetectTraceFormat(a.trace);
  if (!format.ok()) return Fail(format.status().message());
  TraceOptions options;
  options.format = *format;
  auto trace = LoadTrace(a.trace, options);
  if (!trace.ok()) return Fail(trace.status().message());
  int gpus = 0;
  if (!a.cluster.empty()) {
    auto cluster = LoadClusterSpec(a.cluster);
    if (!cluster.ok()) return Fail(cluster.status().message());
    gpus = cluster->TotalGpus();
  }
  std::printf("trace %s (format %s)\n", a.trace.c_str(), TraceFormatName(*format));
  std::printf("%s", FormatTraceStats(ComputeTraceStats(*trace), gpus).c_str());
  return 0;
}

}  // namespace

void AddTraceCommands(CLI::App& app, std::vector<Subcommand>& out) {
  CLI::App* trace = app.add_subcommand("trace", "Look at a trace before simulating it");
  trace->require_subcommand(1);
  auto args = std::make_shared<TraceStatsArgs>();
  CLI::App* stats = trace->add_subcommand(
      "stats", "Jobs, arrival rate, GPU demand, runtimes and the offered load on a cluster");
  stats->add_option("trace", args->trace, "trace file")->required()->check(CLI::ExistingFile);
  stats->add_option("--format", args->format, "trace format (default auto)");
  stats->add_option("--cluster", args->cluster, "cluster spec: also print the offered load")
      ->check(CLI::ExistingFile);
  out.push_back({stats, [args] { return Stats(*args); }});
}

}  // namespace schedkit::cli
