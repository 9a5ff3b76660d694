#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <thread>

#include "metrics/summary_json.h"
#include "schedkit/experiment.h"
#include "workload/csv.h"

namespace schedkit {

void ParallelFor(size_t n, int threads, const std::function<void(size_t)>& fn,
                 const std::atomic<bool>* stop) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = static_cast<int>(std::min<size_t>(threads, n));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    while (!(stop != nullptr && stop->load())) {
      const size_t i = next.fetch_add(1);
      if (i >= n) return;
      fn(i);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  if (threads > 0) worker();
  for (std::thread& t : pool) t.join();
}

std::vector<Result<RunOutput>> RunAll(const Trace& trace, const ClusterSpec& cluster,
                                      const std::vector<PolicyRequest>& requests,
                                      const SimulatorOptions& options, int threads) {
  std::vector<std::optional<Result<RunOutput>>> slots(requests.size());
  ParallelFor(requests.size(), threads, [&](size_t i) {
    slots[i].emplace(RunSimulation(trace, cluster, requests[i], options));
  });
  std::vector<Result<RunOutput>> results;
  results.reserve(slots.size());
  for (auto& slot : slots) results.push_back(std::move(*slot));
  return results;
}

namespace {

// The lowest avg JCT among runs that finished a job; 0 if none did.
double BestAvgJct(const std::vector<Summary>& summaries) {
  double best = 0;
  for (const Summary& s : summaries) {
    if (s.jobs > 0 && (best == 0 || s.avg_jct_s < best)) best = s.avg_jct_s;
  }
  return best;
}

Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot open for writing");
  out << text;
  return out ? Status::Ok() : Status::IoError(path + ": write failed");
}

}  // namespace

Status WriteComparison(const std::string& dir, const std::vector<std::string>& labels,
                       const std::vector<Summary>& summaries) {
  const double best = BestAvgJct(summaries);
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  std::string csv;
  for (size_t i = 0; i < summaries.size(); ++i) {
    nlohmann::ordered_json row;
    row["policy"] = labels[i];
    row.update(SummaryStatisticsJson(summaries[i]));
    row["avg_jct_vs_best"] = best > 0 ? summaries[i].avg_jct_s / best : 0.0;
    if (i == 0) {
      for (auto it = row.begin(); it != row.end(); ++it) csv += (it == row.begin() ? "" : ",") + it.key();
      csv += '\n';
    }
    csv += workload::CsvField(labels[i]);
    for (auto it = std::next(row.begin()); it != row.end(); ++it) csv += ',' + it->dump();
    csv += '\n';
    runs.push_back(std::move(row));
  }
  SCHEDKIT_RETURN_IF_ERROR(WriteText(dir + "/comparison.csv", csv));
  nlohmann::ordered_json j;
  j["runs"] = std::move(runs);
  return WriteText(dir + "/comparison.json", j.dump(2) + "\n");
}

std::string FormatComparison(const std::vector<std::string>& labels,
                             const std::vector<Summary>& summaries) {
  const double best = BestAvgJct(summaries);
  size_t width = 6;
  for (const std::string& l : labels) width = std::max(width, l.size());
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-*s %6s %12s %12s %12s %13s %11s %6s %8s %7s\n",
                static_cast<int>(width), "policy", "jobs", "avg JCT s", "p50 JCT s", "p99 JCT s",
                "makespan s", "avg queue s", "util", "preempt", "x best");
  out += line;
  for (size_t i = 0; i < summaries.size(); ++i) {
    const Summary& s = summaries[i];
    std::snprintf(line, sizeof line,
                  "%-*s %6lld %12.1f %12.1f %12.1f %13.1f %11.1f %6.3f %8lld %7.3f\n",
                  static_cast<int>(width), labels[i].c_str(), static_cast<long long>(s.jobs),
                  s.avg_jct_s, s.p50_jct_s, s.p99_jct_s, s.makespan_s, s.avg_queue_s,
                  s.gpu_utilization, static_cast<long long>(s.preemptions),
                  best > 0 ? s.avg_jct_s / best : 0.0);
    out += line;
  }
  return out;
}

}  // namespace schedkit
