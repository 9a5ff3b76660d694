#include "schedkit/metrics.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "metrics/summary_json.h"
#include "workload/csv.h"

namespace schedkit {

namespace {

// The index a full sort of n values would read the p-th percentile at, by `rule`.
size_t PercentileIndex(size_t n, double p, PercentileRule rule) {
  size_t index;
  if (rule == PercentileRule::kMuriIndex) {
    index = static_cast<size_t>(p * static_cast<double>(n));
  } else {
    const double rank = std::ceil(p * static_cast<double>(n) - 1e-9);
    index = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  }
  return std::min(index, n - 1);
}

// Percentile() of each of `ps` (ascending) over `values`, which it reorders: each
// nth_element works on what lies at or above the last one's index, where the next
// percentile is (no copy of the values per percentile).
template <size_t N>
std::array<double, N> Percentiles(std::vector<double>* values, const std::array<double, N>& ps,
                                  PercentileRule rule) {
  std::array<double, N> out{};
  if (values->empty()) return out;
  auto from = values->begin();
  for (size_t i = 0; i < N; ++i) {
    const auto nth = values->begin() + static_cast<std::ptrdiff_t>(
                                           PercentileIndex(values->size(), ps[i], rule));
    std::nth_element(from, nth, values->end());
    out[i] = *nth;
    from = nth;
  }
  return out;
}

}  // namespace

double Percentile(std::vector<double> values, double p, PercentileRule rule) {
  // The value a full sort would put at the index, in linear time (a summary of 1M jobs
  // took five sorts of 1M doubles).
  return Percentiles<1>(&values, {p}, rule)[0];
}

size_t MetricsRecorder::TextHash::operator()(const Placement& p) const {
  uint64_t h = p.shares.size();
  for (const NodeShare& s : p.shares) {
    h = h * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(s.node);
    h = h * 0x9E3779B97F4A7C15ULL + s.gpu_mask;
    h = h * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(s.gpu_milli);
  }
  return static_cast<size_t>(h ^ (h >> 29));
}

bool MetricsRecorder::SameText::operator()(const Placement& a, const Placement& b) const {
  return std::equal(a.shares.begin(), a.shares.end(), b.shares.begin(), b.shares.end(),
                    [](const NodeShare& x, const NodeShare& y) {
                      return x.node == y.node && x.gpu_mask == y.gpu_mask &&
                             x.gpu_milli == y.gpu_milli;
                    });
}

MetricsRecorder::MetricsRecorder(const Trace* trace, double runtime_factor, double end_round_s)
    : runtime_factor_(runtime_factor), end_round_s_(end_round_s) {
  if (trace == nullptr) return;
  for (const JobSpec& spec : trace->jobs) AddJob(spec);
}

void MetricsRecorder::AddJob(const JobSpec& spec) {
  const int row = static_cast<int>(rows_.size());
  // Flat while every id is below 4x the rows + 64 (no id is negative).
  if (sparse_rows_.empty() && spec.id >= 0 && spec.id < 4 * static_cast<JobId>(row + 1) + 64) {
    if (spec.id >= static_cast<JobId>(dense_rows_.size())) {
      dense_rows_.resize(std::max<size_t>(spec.id + 1, dense_rows_.size() * 3 / 2), -1);
    }
    if (dense_rows_[spec.id] < 0) dense_rows_[spec.id] = row;  // The first of a repeated id, as the map.
  } else {
    if (sparse_rows_.empty()) {  // Move the flat rows over, once.
      for (size_t id = 0; id < dense_rows_.size(); ++id) {
        if (dense_rows_[id] >= 0) sparse_rows_.emplace(static_cast<JobId>(id), dense_rows_[id]);
      }
      std::vector<int32_t>().swap(dense_rows_);
    }
    sparse_rows_.emplace(spec.id, row);
  }
  Row r;
  r.id = spec.id;
  r.gpus = spec.gpus;
  r.vc = VcId(spec.vc);
  r.submit_s = spec.submit_s;
  r.solo_s = spec.SoloRuntime() * runtime_factor_;
  rows_.push_back(r);
}

uint32_t MetricsRecorder::VcId(const std::string& vc) {
  if (vc.empty()) return 0;
  auto [it, added] = vc_ids_.try_emplace(vc, static_cast<uint32_t>(vc_texts_.size()));
  if (added) vc_texts_.push_back(vc);
  return it->second;
}

uint32_t MetricsRecorder::PlacementId(const Placement& placement) {
  if (placement.empty()) return 0;
  if (placement.shares.size() > 1) {
    // A job over several nodes seldom starts on the same GPUs twice (Tiresias' 1M runs:
    // nearly every such start is new): a lookup would cost more than it saves, and the
    // table would hold them all. Such a start keeps its own copy, the row's from then on
    // (OnJobStart).
    placements_.push_back(placement);
    return static_cast<uint32_t>(placements_.size() - 1);
  }
  auto [it, added] = placement_ids_.try_emplace(placement, static_cast<uint32_t>(placements_.size()));
  if (added) placements_.push_back(placement);
  return it->second;
}

std::string MetricsRecorder::PlacementText(const Row& row) const {
  if (row.node < 0) return placements_[row.placement].ToString();
  Placement p;
  p.shares.emplace_back();
  p.shares[0].node = row.node;
  p.shares[0].gpu_mask = row.gpu_mask;
  return p.ToString();
}

RecordedJob MetricsRecorder::job(size_t i) const {
  const Row& r = rows_[i];
  RecordedJob out;
  out.id = r.id;
  out.submit_s = r.submit_s;
  out.first_start_s = r.first_start_s;
  out.end_s = r.end_s;
  out.executed_s = r.executed_s;
  out.solo_s = r.solo_s;
  out.gpus = r.gpus;
  out.preemptions = r.preemptions;
  out.placement = PlacementText(r);
  out.vc = vc_texts_[r.vc];
  out.outcome = r.outcome;
  return out;
}

std::vector<RecordedJob> MetricsRecorder::Jobs() const {
  std::vector<RecordedJob> out;
  out.reserve(rows_.size());
  for (size_t i = 0; i < rows_.size(); ++i) out.push_back(job(i));
  return out;
}

int MetricsRecorder::RowOf(JobId id) const {
  if (sparse_rows_.empty()) {
    if (id >= 0 && id < static_cast<JobId>(dense_rows_.size()) && dense_rows_[id] >= 0) {
      return dense_rows_[id];
    }
  } else if (auto it = sparse_rows_.find(id); it != sparse_rows_.end()) {
    return it->second;
  }
  std::fprintf(stderr, "schedkit: metrics: no row for job %lld\n", static_cast<long long>(id));
  std::abort();
}

void MetricsRecorder::OnJobStart(const JobSpec& job, Time now, const Placement& placement) {
  Row& r = rows_[RowOf(job.id)];
  if (r.first_start_s == kNever) r.first_start_s = now;
  if (placement.shares.size() == 1 && !placement.shares[0].fractional()) {
    r.node = placement.shares[0].node;
    r.gpu_mask = placement.shares[0].gpu_mask;
  } else if (placement.shares.size() > 1 && placements_[r.placement].shares.size() > 1) {
    // The row's own copy (PlacementId), kept while it ran on one node since: a restart's
    // replaces it. (A job that moves between one node and several would otherwise leave
    // a copy at every move: a million under LAS at 89 %.)
    placements_[r.placement] = placement;
    r.node = -1;
  } else {
    r.node = -1;
    r.placement = PlacementId(placement);
  }
}

void MetricsRecorder::OnJobPreempt(const JobSpec& job, Time now) {
  ++rows_[RowOf(job.id)].preemptions;
}

void MetricsRecorder::OnJobReject(const JobSpec& job, Time now) {
  rows_[RowOf(job.id)].outcome = RecordedJob::Outcome::kRejected;
}

void MetricsRecorder::OnJobFinish(const JobSpec& job, Time now, Time first_start,
                                  double executed_s, int preemptions,
                                  const Placement& last_placement) {
  const int i = RowOf(job.id);
  Row& r = rows_[i];
  r.end_s = end_round_s_ > 0 ? std::ceil(now / end_round_s_) * end_round_s_ : now;
  r.first_start_s = first_start;
  r.executed_s = executed_s;
  r.preemptions = preemptions;
  r.outcome = RecordedJob::Outcome::kFinished;
  completion_order_.push_back(i);
}

void MetricsRecorder::OnClusterState(Time now, int pending, int running, int busy_gpus) {
  samples_.Record(ClusterSample{now, pending, running, busy_gpus});
}

namespace {

// SampleLog's coding: blocks of kSampleBlock bytes, each record whole in one block.
constexpr size_t kSampleBlock = size_t{1} << 16;
constexpr size_t kMaxSampleRecord = 1 + 4 * 10;  // Trailing zeros, then four varints.

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t z) {
  return static_cast<int64_t>(z >> 1) ^ -static_cast<int64_t>(z & 1);
}
uint8_t* PutVarint(uint64_t v, uint8_t* out) {
  while (v >= 0x80) {
    *out++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<uint8_t>(v);
  return out;
}
uint64_t GetVarint(const uint8_t** p) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const uint8_t b = *(*p)++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}
uint64_t TimeBits(Time t) { return std::bit_cast<uint64_t>(t); }

}  // namespace

void MetricsRecorder::SampleLog::Record(const ClusterSample& s) {
  if (has_newest_ && newest_.time_s == s.time_s) {
    newest_ = s;
    return;
  }
  if (has_newest_) Encode(newest_);
  newest_ = s;
  has_newest_ = true;
}

void MetricsRecorder::SampleLog::Encode(const ClusterSample& s) {
  if (blocks_.empty() || blocks_.back().size() + kMaxSampleRecord > kSampleBlock) {
    blocks_.emplace_back().reserve(kSampleBlock);
  }
  const ClusterSample& p = encoded_last_;
  uint8_t record[kMaxSampleRecord];
  uint8_t* out = record;
  // The bit patterns' difference (wrapping: any two times code exactly), zigzagged.
  const uint64_t dt = ZigZag(static_cast<int64_t>(TimeBits(s.time_s) - TimeBits(p.time_s)));
  const int zeros = dt == 0 ? 0 : std::countr_zero(dt);
  *out++ = static_cast<uint8_t>(zeros);
  out = PutVarint(dt >> zeros, out);
  out = PutVarint(ZigZag(int64_t{s.pending} - p.pending), out);
  out = PutVarint(ZigZag(int64_t{s.running} - p.running), out);
  out = PutVarint(ZigZag(int64_t{s.busy_gpus} - p.busy_gpus), out);
  blocks_.back().insert(blocks_.back().end(), record, out);
  encoded_last_ = s;
  ++encoded_;
}

void MetricsRecorder::SampleLog::ForEach(const std::function<void(const ClusterSample&)>& f) const {
  ClusterSample s{0, 0, 0, 0};
  for (const std::vector<uint8_t>& block : blocks_) {
    const uint8_t* p = block.data();
    const uint8_t* end = p + block.size();
    while (p < end) {
      const int zeros = *p++;
      const uint64_t dt = GetVarint(&p) << zeros;
      s.time_s = std::bit_cast<Time>(TimeBits(s.time_s) + static_cast<uint64_t>(UnZigZag(dt)));
      s.pending = static_cast<int>(s.pending + UnZigZag(GetVarint(&p)));
      s.running = static_cast<int>(s.running + UnZigZag(GetVarint(&p)));
      s.busy_gpus = static_cast<int>(s.busy_gpus + UnZigZag(GetVarint(&p)));
      f(s);
    }
  }
  if (has_newest_) f(newest_);
}

Summary Summarize(const MetricsRecorder& recorder, const ClusterSpec& cluster,
                  const SimulationStats& stats, PercentileRule rule, double wall_s,
                  const std::optional<MeasuredJobs>& measured) {
  using Row = MetricsRecorder::Row;
  const auto& rows = recorder.rows_;
  auto counted = [&](const Row& r) {
    return !measured || (r.id >= measured->first && r.id <= measured->last);
  };
  auto jct = [](const Row& r) { return r.end_s - r.submit_s; };
  Summary s;
  std::vector<double> jcts, queues, slowdowns;
  jcts.reserve(recorder.completion_order().size());
  queues.reserve(recorder.completion_order().size());
  slowdowns.reserve(recorder.completion_order().size());
  double jct_sum = 0, queue_sum = 0, slowdown_sum = 0, last_end = 0;
  double first_submit = rows.size() == 0 ? 0 : rows[0].submit_s;
  // Rows are read in completion order, at random over the run's rows: each is fetched
  // kAhead rows early, so that the fetches overlap instead of stalling one by one.
  constexpr size_t kAhead = 16;
  const std::vector<int>& order = recorder.completion_order();
  for (size_t k = 0; k < order.size(); ++k) {
    if (k + kAhead < order.size()) {
      const Row& ahead = rows[order[k + kAhead]];
      __builtin_prefetch(&ahead.id);  // The fields read below: id to solo_s.
      __builtin_prefetch(&ahead.solo_s);
    }
    const Row& r = rows[order[k]];
    last_end = std::max(last_end, r.end_s);
    if (!counted(r)) continue;
    const double queue = r.first_start_s - r.submit_s;
    jct_sum += jct(r);
    queue_sum += queue;
    jcts.push_back(jct(r));
    queues.push_back(queue);
    if (r.solo_s > 0) {  // RecordedJob::slowdown().
      const double slowdown = jct(r) / r.solo_s;
      slowdown_sum += slowdown;
      slowdowns.push_back(slowdown);
    }
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    first_submit = std::min(first_submit, r.submit_s);
    if (!counted(r)) continue;
    s.preemptions += r.preemptions;
    if (r.outcome == RecordedJob::Outcome::kRejected) ++s.rejected;
    if (r.outcome == RecordedJob::Outcome::kUnfinished) ++s.unfinished;
  }
  s.jobs = static_cast<int64_t>(jcts.size());
  if (s.jobs > 0) {
    s.avg_jct_s = jct_sum / s.jobs;
    s.avg_queue_s = queue_sum / s.jobs;
    const std::array<double, 3> p = Percentiles<3>(&jcts, {0.50, 0.95, 0.99}, rule);
    s.p50_jct_s = p[0];
    s.p95_jct_s = p[1];
    s.p99_jct_s = p[2];
    s.p999_queue_s = Percentiles<1>(&queues, {0.999}, rule)[0];
    s.makespan_s = last_end - first_submit;
  }
  if (!slowdowns.empty()) {
    s.avg_slowdown = slowdown_sum / static_cast<double>(slowdowns.size());
    s.p99_slowdown = Percentiles<1>(&slowdowns, {0.99}, rule)[0];
  }
  // Busy GPU-seconds from the piecewise-constant time series.
  double busy = 0;
  std::optional<ClusterSample> before;
  recorder.ForEachSample([&](const ClusterSample& s) {
    if (before) busy += before->busy_gpus * (s.time_s - before->time_s);
    before = s;
  });
  const double capacity = static_cast<double>(cluster.TotalGpus()) * s.makespan_s;
  s.gpu_utilization = capacity > 0 ? busy / capacity : 0;
  s.wall_s = wall_s;
  s.events = stats.events;
  s.decisions = stats.decisions;
  return s;
}

namespace {

std::string Num(double v) {
  if (v == kNever) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

}  // namespace

const char* OutcomeName(RecordedJob::Outcome o) {
  switch (o) {
    case RecordedJob::Outcome::kFinished: return "finished";
    case RecordedJob::Outcome::kRejected: return "rejected";
    case RecordedJob::Outcome::kUnfinished: return "unfinished";
  }
  return "?";
}

Status WriteJobsCsv(const MetricsRecorder& recorder, const std::string& path) {
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot open for writing");
  out << "job_id,gpus,submit_s,first_start_s,end_s,jct_s,queue_s,executed_s,preemptions,"
         "outcome,placement,vc\n";
  for (size_t i = 0; i < recorder.rows_.size(); ++i) {
    const MetricsRecorder::Row& r = recorder.rows_[i];
    const bool done = r.outcome == RecordedJob::Outcome::kFinished;
    out << r.id << ',' << r.gpus << ',' << Num(r.submit_s) << ',' << Num(r.first_start_s) << ','
        << Num(r.end_s) << ',' << (done ? Num(r.end_s - r.submit_s) : "") << ','
        << (r.first_start_s == kNever ? "" : Num(r.first_start_s - r.submit_s)) << ','
        << Num(r.executed_s) << ',' << r.preemptions << ',' << OutcomeName(r.outcome) << ','
        << workload::CsvField(recorder.PlacementText(r)) << ','
        << workload::CsvField(recorder.vc_texts_[r.vc]) << '\n';
  }
  return out ? Status::Ok() : Status::IoError(path + ": write failed");
}

Status WriteTimeSeriesCsv(const MetricsRecorder& recorder, const std::string& path) {
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot open for writing");
  out << "time_s,pending,running,busy_gpus\n";
  recorder.ForEachSample([&](const ClusterSample& s) {
    out << Num(s.time_s) << ',' << s.pending << ',' << s.running << ',' << s.busy_gpus << '\n';
  });
  return out ? Status::Ok() : Status::IoError(path + ": write failed");
}

nlohmann::ordered_json SummaryStatisticsJson(const Summary& s) {
  nlohmann::ordered_json j;
  j["jobs"] = s.jobs;
  j["rejected"] = s.rejected;
  j["unfinished"] = s.unfinished;
  j["avg_jct_s"] = s.avg_jct_s;
  j["p50_jct_s"] = s.p50_jct_s;
  j["p95_jct_s"] = s.p95_jct_s;
  j["p99_jct_s"] = s.p99_jct_s;
  j["makespan_s"] = s.makespan_s;
  j["avg_queue_s"] = s.avg_queue_s;
  j["p999_queue_s"] = s.p999_queue_s;
  j["avg_slowdown"] = s.avg_slowdown;
  j["p99_slowdown"] = s.p99_slowdown;
  j["gpu_utilization"] = s.gpu_utilization;
  j["preemptions"] = s.preemptions;
  j["events"] = s.events;
  j["decisions"] = s.decisions;
  j["wall_s"] = s.wall_s;
  return j;
}

Status WriteSummaryJson(const Summary& s,
                        const std::vector<std::pair<std::string, std::string>>& context,
                        const std::string& path) {
  nlohmann::ordered_json j;
  for (const auto& [k, v] : context) j["run"][k] = v;
  j.update(SummaryStatisticsJson(s));
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot open for writing");
  out << j.dump(2) << '\n';
  return out ? Status::Ok() : Status::IoError(path + ": write failed");
}

}  // namespace schedkit
