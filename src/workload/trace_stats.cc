#include "schedkit/trace_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "schedkit/metrics.h"

namespace schedkit {

constexpr double kHour = 3600;

double TraceStats::OfferedLoad(int cluster_gpus) const {
  if (span_s() <= 0 || cluster_gpus <= 0) return NAN;
  return gpu_seconds / (static_cast<double>(cluster_gpus) * span_s());
}

TraceStats ComputeTraceStats(const Trace& trace) {
  TraceStats s;
  s.jobs = static_cast<int64_t>(trace.jobs.size());
  if (trace.jobs.empty()) return s;
  std::vector<double> runtimes;
  runtimes.reserve(trace.jobs.size());
  s.first_submit_s = trace.jobs.front().submit_s;
  s.last_submit_s = trace.jobs.front().submit_s;
  for (const JobSpec& j : trace.jobs) {
    s.first_submit_s = std::min(s.first_submit_s, j.submit_s);
    s.last_submit_s = std::max(s.last_submit_s, j.submit_s);
    ++s.jobs_by_gpus[j.gpus];
    runtimes.push_back(j.SoloRuntime());
    s.gpu_seconds += j.gpus * j.SoloRuntime();
  }
  if (s.span_s() > 0) s.arrivals_per_hour = (s.jobs - 1) / s.span_s() * kHour;
  s.runtime_p50_s = Percentile(runtimes, 0.50, PercentileRule::kNearestRank);
  s.runtime_p90_s = Percentile(runtimes, 0.90, PercentileRule::kNearestRank);
  s.runtime_p99_s = Percentile(runtimes, 0.99, PercentileRule::kNearestRank);
  s.runtime_max_s = *std::max_element(runtimes.begin(), runtimes.end());
  s.arrivals_by_hour.assign(static_cast<size_t>(s.span_s() / kHour) + 1, 0);
  for (const JobSpec& j : trace.jobs) {
    ++s.arrivals_by_hour[static_cast<size_t>((j.submit_s - s.first_submit_s) / kHour)];
  }
  std::sort(runtimes.begin(), runtimes.end());
  const size_t n = runtimes.size();
  const size_t m = std::min<size_t>(n, TraceStats::kRuntimeCdfPoints);
  for (size_t k = 1; k <= m; ++k) {
    // Nearest rank of quantile k/m: ceil(k n / m), exact in integers.
    s.runtime_cdf_s.push_back(runtimes[(k * n + m - 1) / m - 1]);
  }
  return s;
}

std::string FormatTraceStats(const TraceStats& s, int cluster_gpus) {
  std::string out;
  char line[256];
  auto add = [&](const char* label, const std::string& value) {
    std::snprintf(line, sizeof line, "  %-40s %s\n", label, value.c_str());
    out += line;
  };
  auto num = [](double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%.3f", v);
    return std::string(b);
  };
  add("jobs", std::to_string(s.jobs));
  add("submissions from / to (s)", num(s.first_submit_s) + " / " + num(s.last_submit_s));
  add("arrival rate (jobs/h)", s.span_s() > 0 ? num(s.arrivals_per_hour) : "- (all at once)");
  std::string gpus;
  for (const auto& [g, n] : s.jobs_by_gpus) {
    gpus += (gpus.empty() ? "" : ", ") + std::to_string(g) + " GPU: " + std::to_string(n);
  }
  add("jobs by GPUs asked", gpus.empty() ? "-" : gpus);
  add("solo runtime p50 / p90 / p99 / max (s)", num(s.runtime_p50_s) + " / " +
                                                    num(s.runtime_p90_s) + " / " +
                                                    num(s.runtime_p99_s) + " / " +
                                                    num(s.runtime_max_s));
  add("work (GPU-hours)", num(s.gpu_seconds / 3600));
  if (cluster_gpus > 0) {
    const double load = s.OfferedLoad(cluster_gpus);
    add(("offered load on " + std::to_string(cluster_gpus) + " GPUs").c_str(),
        std::isnan(load) ? "- (all jobs arrive at once: a batch)"
                         : num(load) + (load > 1 ? " (over capacity: queues grow while jobs arrive)"
                                                 : ""));
  }
  return out;
}


std::string TraceStatsJson(const TraceStats& s, int cluster_gpus) {
  nlohmann::ordered_json j;
  j["jobs"] = s.jobs;
  j["first_submit_s"] = s.first_submit_s;
  j["last_submit_s"] = s.last_submit_s;
  j["arrivals_per_hour"] = s.arrivals_per_hour;
  nlohmann::ordered_json by_gpus = nlohmann::ordered_json::object();
  for (const auto& [g, n] : s.jobs_by_gpus) by_gpus[std::to_string(g)] = n;
  j["jobs_by_gpus"] = by_gpus;
  j["runtime_p50_s"] = s.runtime_p50_s;
  j["runtime_p90_s"] = s.runtime_p90_s;
  j["runtime_p99_s"] = s.runtime_p99_s;
  j["runtime_max_s"] = s.runtime_max_s;
  j["gpu_hours"] = s.gpu_seconds / kHour;
  if (cluster_gpus > 0) {
    const double load = s.OfferedLoad(cluster_gpus);
    j["cluster_gpus"] = cluster_gpus;
    j["offered_load"] = std::isnan(load) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(load);
  }
  j["arrivals_by_hour"] = s.arrivals_by_hour;
  j["runtime_cdf_s"] = s.runtime_cdf_s;
  return j.dump(1) + "\n";
}

}  // namespace schedkit
