// --compat lucid speed on the seed-1 Venus trace: every policy, one core (threads=1),
// best of N runs; peak RSS of the process. With --clean 1, the clean model over the same
// VCs instead (lucid::RunVirtualClusters, Lucid's settings for each policy, the lucid
// policy with its profiler). Nothing asserts on time (docs/performance.md).
//
//   schedkit_lucid_bench [--runs N] [--lucid-dir DIR] [--trace FILE] [--clean 1]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "schedkit/lucid.h"
#include "schedkit/registry.h"
#include "schedkit/trace.h"

namespace lc = schedkit::lucid;

namespace {

// The clean-model policy closest to Lucid's version of `name`.
schedkit::PolicyRequest CleanRequest(const std::string& name, const std::string& dir) {
  schedkit::PolicyRequest r;
  r.policy = name;
  if (name == "fifo" || name == "sjf") r.options["backfill"] = "false";
  if (name == "qssf") r.options["estimates"] = dir + "/Venus_Sept_lgb.csv";
  if (name == "tiresias") r.options["thresholds"] = "18000";
  if (name == "lucid") {
    r.options["estimates"] = dir + "/Venus_Sept_ebm_weekly_updated.csv";
    r.options["share_scores"] = dir + "/single_data.csv";
    r.options["colocate"] = dir + "/colocate_info.csv";
    r.options["forecast"] = dir + "/Venus_throughput_pred.csv";
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  std::string dir = std::string(SCHEDKIT_SHARED_DIR) + "/data/lucid";
  std::string trace_path;
  bool clean = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--clean") == 0) clean = std::atoi(argv[i + 1]) != 0;
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--lucid-dir") == 0) dir = argv[i + 1];
    if (std::strcmp(argv[i], "--trace") == 0) trace_path = argv[i + 1];
  }
  if (trace_path.empty()) trace_path = dir + "/venus_synth_seed1.csv";
  std::printf("%-9s %8s %10s %10s %12s %12s %14s\n", "policy", "jobs", "best_s", "median_s",
              "avg_jct_s", "avg_queue_s", "p999_queue_s");
  for (const char* name : {"fifo", "sjf", "qssf", "tiresias", "lucid"}) {
    auto policy = lc::ParseCompatPolicy(name);
    auto config = lc::ConfigFromOptions(*policy, {{"lucid_dir", dir}, {"threads", "1"}});
    if (!config.ok()) {
      std::fprintf(stderr, "%s\n", config.status().message().c_str());
      return 1;
    }
    auto trace = lc::LoadExperimentTrace(trace_path, {}, config->vcs);
    if (!trace.ok()) {
      std::fprintf(stderr, "%s\n", trace.status().message().c_str());
      return 1;
    }
    std::vector<double> times;
    lc::MetricSummary last;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      schedkit::Status status;
      if (clean) {
        auto run = lc::RunVirtualClusters(*trace, config->vcs, CleanRequest(name, dir),
                                          schedkit::SimulatorOptions(), 1);
        if (run.ok()) last = run->all;
        if (!run.ok()) status = run.status();
      } else {
        auto run = lc::RunCompat(*trace, *config);
        if (run.ok()) last = run->all;
        if (!run.ok()) status = run.status();
      }
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (!status.ok()) {
        std::fprintf(stderr, "%s\n", status.message().c_str());
        return 1;
      }
    }
    std::sort(times.begin(), times.end());
    std::printf("%-9s %8lld %10.4f %10.4f %12.3f %12.3f %14.3f\n", name,
                static_cast<long long>(last.jobs), times.front(), times[times.size() / 2],
                last.avg_jct_s, last.avg_queue_s, last.p999_queue_s);
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS %.1f MB (loading included)\n", usage.ru_maxrss / 1024.0);
  return 0;
}
