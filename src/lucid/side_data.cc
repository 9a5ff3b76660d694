// Loaders for Lucid's side files (vc_config, estimates, share scores, pair speeds,
// throughput forecast). Every error names file:line:field (workload/csv.h).
#include <string>

#include "schedkit/lucid.h"
#include "schedkit/trace.h"
#include "workload/csv.h"

namespace schedkit::lucid {
namespace {

using workload::CsvReader;

Result<std::unique_ptr<CsvReader>> OpenWithHeader(const std::string& path) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  SCHEDKIT_RETURN_IF_ERROR((*opened)->ReadHeader());
  return opened;
}

struct KeyColumns {
  int model, dataset, batch, amp;
};

Status ReadKey(const CsvReader& in, const KeyColumns& c, WorkloadKey* key) {
  SCHEDKIT_RETURN_IF_ERROR(in.ReadString(c.model, &key->model));
  SCHEDKIT_RETURN_IF_ERROR(in.ReadString(c.dataset, &key->dataset));
  SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(c.batch, &key->batch_size, 0));
  int amp = 0;
  SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(c.amp, &amp, 0, 1));
  key->amp = amp != 0;
  return Status::Ok();
}

Status RequireKey(const CsvReader& in, const std::string& suffix, KeyColumns* c) {
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("model" + suffix, &c->model));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("dataset" + suffix, &c->dataset));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("batchsize" + suffix, &c->batch));
  return in.RequireColumn("amp" + suffix, &c->amp);
}

}  // namespace

Result<std::vector<VirtualCluster>> LoadVcConfig(const std::string& path) {
  auto in = OpenWithHeader(path);
  if (!in.ok()) return in.status();
  CsvReader& r = **in;
  int num_col;
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("num", &num_col));
  const int name_col = r.HasColumn("vc") ? r.ColumnIndex("vc") : r.ColumnIndex("");
  if (name_col < 0) return r.RequireColumn("vc", &num_col);
  std::vector<VirtualCluster> vcs;
  while (r.Next()) {
    VirtualCluster vc;
    SCHEDKIT_RETURN_IF_ERROR(r.ReadString(name_col, &vc.name));
    SCHEDKIT_RETURN_IF_ERROR(r.ReadInt(num_col, &vc.nodes, 0));
    for (const VirtualCluster& other : vcs) {
      if (other.name == vc.name) return r.FieldError(name_col, "names a VC twice");
    }
    vcs.push_back(std::move(vc));
  }
  SCHEDKIT_RETURN_IF_ERROR(r.status());
  return vcs;
}

Result<std::unordered_map<JobId, double>> LoadEstimates(const std::string& path) {
  auto in = OpenWithHeader(path);
  if (!in.ok()) return in.status();
  CsvReader& r = **in;
  int id_col, value_col = r.ColumnIndex("estimate_s");
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("job_id", &id_col));
  if (value_col < 0) SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("priority", &value_col));
  std::unordered_map<JobId, double> out;
  while (r.Next()) {
    JobId id;
    double v;
    SCHEDKIT_RETURN_IF_ERROR(r.ReadInt(id_col, &id));
    SCHEDKIT_RETURN_IF_ERROR(r.ReadDouble(value_col, &v));
    if (!out.emplace(id, v).second) return r.FieldError(id_col, "gives a job a second estimate");
  }
  SCHEDKIT_RETURN_IF_ERROR(r.status());
  return out;
}

Result<std::map<WorkloadKey, int>> LoadShareScores(const std::string& path) {
  auto in = OpenWithHeader(path);
  if (!in.ok()) return in.status();
  CsvReader& r = **in;
  KeyColumns c;
  int label_col;
  SCHEDKIT_RETURN_IF_ERROR(RequireKey(r, "", &c));
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("label", &label_col));
  std::map<WorkloadKey, int> out;
  while (r.Next()) {
    WorkloadKey k;
    int label;
    SCHEDKIT_RETURN_IF_ERROR(ReadKey(r, c, &k));
    SCHEDKIT_RETURN_IF_ERROR(r.ReadInt(label_col, &label, 0, 2));
    // Lucid takes the first matching row.
    out.emplace(std::move(k), label);
  }
  SCHEDKIT_RETURN_IF_ERROR(r.status());
  return out;
}

Result<std::map<std::pair<WorkloadKey, WorkloadKey>, PairSpeeds>> LoadColocateSpeeds(
    const std::string& path) {
  auto in = OpenWithHeader(path);
  if (!in.ok()) return in.status();
  CsvReader& r = **in;
  KeyColumns c1, c2;
  int s1, s2;
  SCHEDKIT_RETURN_IF_ERROR(RequireKey(r, "1", &c1));
  SCHEDKIT_RETURN_IF_ERROR(RequireKey(r, "2", &c2));
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("speed1", &s1));
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("speed2", &s2));
  std::map<std::pair<WorkloadKey, WorkloadKey>, PairSpeeds> out;
  while (r.Next()) {
    std::pair<WorkloadKey, WorkloadKey> k;
    PairSpeeds s;
    SCHEDKIT_RETURN_IF_ERROR(ReadKey(r, c1, &k.first));
    SCHEDKIT_RETURN_IF_ERROR(ReadKey(r, c2, &k.second));
    SCHEDKIT_RETURN_IF_ERROR(r.ReadDouble(s1, &s.speed1, 0));
    SCHEDKIT_RETURN_IF_ERROR(r.ReadDouble(s2, &s.speed2, 0));
    if (!out.emplace(std::move(k), s).second) {
      return r.Error("a second row for the same (job 1, job 2) workload pair");
    }
  }
  SCHEDKIT_RETURN_IF_ERROR(r.status());
  return out;
}

Result<ThroughputForecast> LoadThroughputForecast(const std::string& path) {
  auto in = OpenWithHeader(path);
  if (!in.ok()) return in.status();
  CsvReader& r = **in;
  int time_col, job_col, num_col;
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("time", &time_col));
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("pred_gpu_job", &job_col));
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("pred_gpu_num", &num_col));
  ThroughputForecast f;
  int64_t first = 0;
  while (r.Next()) {
    int64_t t;
    if (!ParseDateTimeUtc(r.field(time_col), &t)) {
      return r.FieldError(time_col, "is not a date 'YYYY-MM-DD HH:MM:SS'");
    }
    if (f.time_s.empty()) first = t;
    if (!f.time_s.empty() && t - first <= f.time_s.back()) {
      return r.FieldError(time_col, "is not after the previous row");
    }
    double a, b;
    SCHEDKIT_RETURN_IF_ERROR(r.ReadDouble(job_col, &a));
    SCHEDKIT_RETURN_IF_ERROR(r.ReadDouble(num_col, &b));
    f.time_s.push_back(t - first);
    f.pred_gpu_job.push_back(a);
    f.pred_gpu_num.push_back(b);
  }
  SCHEDKIT_RETURN_IF_ERROR(r.status());
  return f;
}

}  // namespace schedkit::lucid
