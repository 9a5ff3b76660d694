// `schedkit trace stats TRACE [--format F] [--cluster C] [--figures DIR]`: what a trace asks
// of a cluster, and (with --figures) its stats.json drawn by python/schedkit_report/trace_figures.py.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "commands.h"
#include "schedkit/cluster.h"
#include "schedkit/trace_stats.h"

namespace schedkit::cli {
namespace {

struct TraceStatsArgs {
  std::string trace, format = "auto", cluster, figures;
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
  const TraceStats stats = ComputeTraceStats(*trace);
  std::printf("%s", FormatTraceStats(stats, gpus).c_str());
  if (a.figures.empty()) return 0;
  std::error_code ec;
  std::filesystem::create_directories(a.figures, ec);
  if (ec) return Fail(a.figures + ": cannot create the figures folder (" + ec.message() + ")");
  const std::string json = (std::filesystem::path(a.figures) / "stats.json").string();
  std::ofstream out(json, std::ios::binary);
  out << TraceStatsJson(stats, gpus);
  out.close();
  if (!out) return Fail(json + ": cannot write");
  return ExecPythonModule("schedkit_report.trace_figures", {a.figures});
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
  stats->add_option("--figures", args->figures,
                    "folder: write stats.json and draw the GPU-demand histogram, runtime CDF and "
                    "arrivals per hour (PNG + PDF)");
  out.push_back({stats, [args] { return Stats(*args); }});
}

}  // namespace schedkit::cli
