// --compat lucid speed on the seed-1 Venus trace: every policy, one core (threads=1),
// best of N runs; peak RSS of the process. Nothing asserts on time (docs/performance.md).
//
//   schedkit_lucid_bench [--runs N] [--lucid-dir DIR] [--trace FILE]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "schedkit/lucid.h"
#include "schedkit/trace.h"

namespace lc = schedkit::lucid;

int main(int argc, char** argv) {
  int runs = 5;
  std::string dir = std::string(SCHEDKIT_SHARED_DIR) + "/data/lucid";
  std::string trace_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--lucid-dir") == 0) dir = argv[i + 1];
    if (std::strcmp(argv[i], "--trace") == 0) trace_path = argv[i + 1];
  }
  if (trace_path.empty()) trace_path = dir + "/venus_synth_seed1.csv";
  std::printf("%-9s %8s %10s %10s %12s %12s %14s\n", "policy", "jobs", "best_s", "median_s",
              "avg_jct_s", "avg_queue_s", "p999_queue_s");
  for (const char* name : {"fifo", "sjf", "qssf", "tiresias", "lucid"}) {
    auto policy = lc::ParsePolicy(name);
    auto config = lc::ConfigFromOptions(*policy, {{"lucid_dir", dir}, {"threads", "1"}});
    if (!config.ok()) {
      std::fprintf(stderr, "%s\n", config.status().message().c_str());
      return 1;
    }
    schedkit::TraceOptions to;
    for (const lc::VirtualCluster& vc : config->vcs) to.lucid_vcs.push_back(vc.name);
    auto trace = schedkit::LoadTrace(trace_path, to);
    if (!trace.ok()) {
      std::fprintf(stderr, "%s\n", trace.status().message().c_str());
      return 1;
    }
    std::vector<double> times;
    lc::MetricSummary last;
    for (int r = 0; r < runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      auto run = lc::RunCompat(*trace, *config);
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      if (!run.ok()) {
        std::fprintf(stderr, "%s\n", run.status().message().c_str());
        return 1;
      }
      last = run->all;
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
