// The allocation problem: validation, the reference throughputs, and the CSV loaders.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "schedkit/gavel.h"
#include "workload/csv.h"

namespace schedkit::gavel {
namespace {

constexpr char kThroughputPrefix[] = "throughput_";

bool FiniteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

}  // namespace

int AllocationProblem::total_gpus() const {
  int n = 0;
  for (const GpuType& t : types) n += t.gpus;
  return n;
}

bool AllocationProblem::Runs(int j, int k) const {
  return jobs[j].scale_factor <= types[k].gpus && jobs[j].throughput[k] > 0;
}

Status Validate(const AllocationProblem& p) {
  if (p.types.empty()) return Status::InvalidArgument("the cluster has no GPU types");
  std::set<std::string> names;
  for (const GpuType& t : p.types) {
    if (!names.insert(t.name).second) {
      return Status::InvalidArgument("GPU type " + Quoted(t.name) + " is listed twice");
    }
    if (t.gpus < 1) return Status::InvalidArgument("GPU type " + Quoted(t.name) + ": gpus must be >= 1");
    if (!std::isfinite(t.cost_per_hour)) {
      return Status::InvalidArgument("GPU type " + Quoted(t.name) + ": cost_per_hour is not finite");
    }
  }
  std::set<std::string> entity_names;
  for (const Entity& e : p.entities) {
    if (!entity_names.insert(e.name).second) {
      return Status::InvalidArgument("entity " + Quoted(e.name) + " is listed twice");
    }
    if (!std::isfinite(e.weight) || e.weight <= 0) {
      return Status::InvalidArgument("entity " + Quoted(e.name) + ": weight must be > 0");
    }
  }
  std::set<std::string> ids;
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    const AllocJob& job = p.jobs[j];
    const std::string who = "job " + Quoted(job.id);
    if (!ids.insert(job.id).second) return Status::InvalidArgument(who + " is listed twice");
    if (job.entity < -1 || job.entity >= static_cast<int>(p.entities.size())) {
      return Status::InvalidArgument(who + ": entity " + std::to_string(job.entity) +
                                     " is not an entity of the problem");
    }
    if (!FiniteNonNegative(job.slo_s)) {
      return Status::InvalidArgument(who + ": slo_s must be finite and >= 0");
    }
    if (job.slo_s > 0 && !(job.steps_left > 0)) {
      return Status::InvalidArgument(who + ": a deadline (slo_s) needs steps_left > 0");
    }
    if (job.scale_factor < 1) return Status::InvalidArgument(who + ": scale_factor must be >= 1");
    if (!std::isfinite(job.weight) || job.weight <= 0) {
      return Status::InvalidArgument(who + ": weight must be > 0");
    }
    if (!FiniteNonNegative(job.steps_left) || !FiniteNonNegative(job.time_since_arrival) ||
        !FiniteNonNegative(job.isolated_time)) {
      return Status::InvalidArgument(
          who + ": steps_left, time_since_arrival and isolated_time must be finite and >= 0");
    }
    if (job.throughput.size() != p.types.size()) {
      return Status::InvalidArgument(who + ": needs one throughput per GPU type");
    }
    bool runs = false;
    for (size_t k = 0; k < p.types.size(); ++k) {
      if (!FiniteNonNegative(job.throughput[k])) {
        return Status::InvalidArgument(who + ": throughput on " + Quoted(p.types[k].name) +
                                       " must be finite and >= 0");
      }
      runs = runs || p.Runs(static_cast<int>(j), static_cast<int>(k));
    }
    if (!runs) {
      return Status::InvalidArgument(who + " runs on no GPU type (each has fewer than " +
                                     std::to_string(job.scale_factor) +
                                     " GPUs or a zero throughput)");
    }
    if (job.held_type != -1 &&
        (job.held_type < 0 || job.held_type >= static_cast<int>(p.types.size()) ||
         !p.Runs(static_cast<int>(j), job.held_type))) {
      return Status::InvalidArgument(who + ": held_type " + std::to_string(job.held_type) +
                                     " is not a GPU type it runs on");
    }
  }
  const int m = static_cast<int>(p.jobs.size());
  for (const JobPair& pair : p.pairs) {
    if (pair.a < 0 || pair.a >= m || pair.b < 0 || pair.b >= m || pair.a == pair.b ||
        pair.type < 0 || pair.type >= static_cast<int>(p.types.size())) {
      return Status::InvalidArgument("a pair names a missing job or type, or one job twice");
    }
    const std::string who =
        "pair " + Quoted(p.jobs[pair.a].id) + " + " + Quoted(p.jobs[pair.b].id);
    if (p.jobs[pair.a].scale_factor != p.jobs[pair.b].scale_factor) {
      return Status::InvalidArgument(who + ": the jobs' scale factors differ");
    }
    if (p.jobs[pair.a].scale_factor > p.types[pair.type].gpus) {
      return Status::InvalidArgument(who + ": type " + Quoted(p.types[pair.type].name) +
                                     " has fewer GPUs than the jobs' scale factor");
    }
    if (!FiniteNonNegative(pair.throughput_a) || !FiniteNonNegative(pair.throughput_b)) {
      return Status::InvalidArgument(who + ": throughputs must be finite and >= 0");
    }
  }
  for (int j = 0; j < m; ++j) {
    const int partner = p.jobs[j].held_partner;
    if (partner == -1) continue;
    if (partner < 0 || partner >= m || partner == j || p.jobs[partner].held_partner != j) {
      return Status::InvalidArgument("job " + Quoted(p.jobs[j].id) + ": held_partner " +
                                     std::to_string(partner) +
                                     " is not another job that holds it as its partner");
    }
  }
  return Status::Ok();
}

std::vector<double> EqualSplitThroughputs(const AllocationProblem& p) {
  const double n = p.total_gpus();
  std::vector<double> out(p.jobs.size(), 0.0);
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    for (size_t k = 0; k < p.types.size(); ++k) {
      out[j] += p.jobs[j].throughput[k] * p.types[k].gpus / n;
    }
  }
  return out;
}

std::vector<std::vector<double>> IsolatedShare(const AllocationProblem& p) {
  const double n = p.total_gpus();
  const double m = static_cast<double>(p.jobs.size());
  std::vector<std::vector<double>> x(p.jobs.size(), std::vector<double>(p.types.size(), 0.0));
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    const double denom = std::max(m * p.jobs[j].scale_factor, n);
    for (size_t k = 0; k < p.types.size(); ++k) {
      // A type the job cannot use gives it nothing (and its share is not moved elsewhere).
      if (p.Runs(static_cast<int>(j), static_cast<int>(k))) x[j][k] = p.types[k].gpus / denom;
    }
  }
  return x;
}

std::vector<double> FinishTimeRatios(const AllocationProblem& p,
                                     const std::vector<std::vector<double>>& x,
                                     const std::vector<double>& pair_x) {
  const std::vector<std::vector<double>> iso = IsolatedShare(p);
  std::vector<double> rates(p.jobs.size(), 0.0);
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    for (size_t k = 0; k < p.types.size(); ++k) rates[j] += p.jobs[j].throughput[k] * x[j][k];
  }
  for (size_t i = 0; i < pair_x.size(); ++i) {
    rates[p.pairs[i].a] += p.pairs[i].throughput_a * pair_x[i];
    rates[p.pairs[i].b] += p.pairs[i].throughput_b * pair_x[i];
  }
  std::vector<double> rho(p.jobs.size());
  for (size_t j = 0; j < p.jobs.size(); ++j) {
    const AllocJob& job = p.jobs[j];
    const double rate = rates[j];
    double iso_rate = 0;
    for (size_t k = 0; k < p.types.size(); ++k) iso_rate += job.throughput[k] * iso[j][k];
    const double isolated_finish = job.isolated_time + job.steps_left / iso_rate;
    rho[j] = rate > 0 ? (job.time_since_arrival + job.steps_left / rate) / isolated_finish
                      : std::numeric_limits<double>::infinity();
  }
  return rho;
}

Result<std::vector<Entity>> ParseEntityWeights(const std::string& text) {
  std::vector<Entity> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    const size_t eq = item.find('=');
    const std::string where = "entity weights: " + Quoted(item);
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument(where + ": expected name=weight or name=weight:fifo");
    }
    Entity e{item.substr(0, eq), 0};
    char* rest = nullptr;
    std::string value = item.substr(eq + 1);
    constexpr std::string_view kFifo = ":fifo";
    if (value.size() > kFifo.size() && value.substr(value.size() - kFifo.size()) == kFifo) {
      e.fifo = true;
      value.resize(value.size() - kFifo.size());
    }
    e.weight = std::strtod(value.c_str(), &rest);
    if (value.empty() || *rest != '\0' || !std::isfinite(e.weight) || e.weight <= 0) {
      return Status::InvalidArgument(where + ": the weight must be a number > 0");
    }
    for (const Entity& seen : out) {
      if (seen.name == e.name) return Status::InvalidArgument(where + ": entity listed twice");
    }
    out.push_back(std::move(e));
    start = end + 1;
  }
  return out;
}

Result<AllocationProblem> LoadAllocationProblem(const std::string& jobs_path,
                                                const std::string& cluster_path,
                                                const std::vector<Entity>& entities) {
  using workload::CsvReader;
  AllocationProblem p;
  p.entities = entities;
  {
    auto r = CsvReader::Open(cluster_path);
    if (!r.ok()) return r.status();
    CsvReader& in = **r;
    if (Status s = in.ReadHeader(); !s.ok()) return s;
    int type_col, gpus_col;
    if (Status s = in.RequireColumn("type", &type_col); !s.ok()) return s;
    if (Status s = in.RequireColumn("gpus", &gpus_col); !s.ok()) return s;
    const int cost_col = in.ColumnIndex("cost_per_hour");
    while (in.Next()) {
      GpuType t;
      if (Status s = in.ReadString(type_col, &t.name); !s.ok()) return s;
      if (t.name.empty()) return in.FieldError(type_col, "is empty");
      for (const GpuType& seen : p.types) {
        if (seen.name == t.name) return in.FieldError(type_col, "is listed twice");
      }
      if (Status s = in.ReadInt(gpus_col, &t.gpus, 1); !s.ok()) return s;
      if (cost_col >= 0) {
        if (Status s = in.ReadDouble(cost_col, &t.cost_per_hour, 0); !s.ok()) return s;
      }
      p.types.push_back(std::move(t));
    }
    if (!in.status().ok()) return in.status();
    if (p.types.empty()) return Status::InvalidArgument(cluster_path + ": no GPU types");
  }
  auto r = CsvReader::Open(jobs_path);
  if (!r.ok()) return r.status();
  CsvReader& in = **r;
  if (Status s = in.ReadHeader(); !s.ok()) return s;
  int id_col, sf_col;
  if (Status s = in.RequireColumn("job", &id_col); !s.ok()) return s;
  if (Status s = in.RequireColumn("scale_factor", &sf_col); !s.ok()) return s;
  std::vector<int> tput_cols;
  for (const GpuType& t : p.types) {
    int col;
    if (Status s = in.RequireColumn(kThroughputPrefix + t.name, &col); !s.ok()) return s;
    tput_cols.push_back(col);
  }
  for (const std::string& name : in.columns()) {
    if (name.rfind(kThroughputPrefix, 0) != 0) continue;
    const std::string type = name.substr(sizeof(kThroughputPrefix) - 1);
    if (std::none_of(p.types.begin(), p.types.end(), [&](const GpuType& t) { return t.name == type; })) {
      return Status::InvalidArgument(jobs_path + ":" + std::to_string(in.header_line()) +
                                     ": column " + Quoted(name) + ": no GPU type " + Quoted(type) +
                                     " in " + cluster_path);
    }
  }
  const int weight_col = in.ColumnIndex("weight");
  const int steps_col = in.ColumnIndex("steps_left");
  const int since_col = in.ColumnIndex("time_since_arrival");
  const int iso_col = in.ColumnIndex("isolated_time");
  const int slo_col = in.ColumnIndex("slo_s");
  const int entity_col = in.ColumnIndex("entity");
  std::vector<bool> entity_used(p.entities.size(), false);
  std::set<std::string> ids;
  while (in.Next()) {
    AllocJob job;
    if (Status s = in.ReadString(id_col, &job.id); !s.ok()) return s;
    if (job.id.empty()) return in.FieldError(id_col, "is empty");
    if (!ids.insert(job.id).second) return in.FieldError(id_col, "is listed twice");
    if (Status s = in.ReadInt(sf_col, &job.scale_factor, 1); !s.ok()) return s;
    if (Status s = in.ReadOptionalDouble(weight_col, &job.weight); !s.ok()) return s;
    if (job.weight <= 0) return in.FieldError(weight_col, "must be > 0");
    if (Status s = in.ReadOptionalDouble(steps_col, &job.steps_left, 0); !s.ok()) return s;
    if (Status s = in.ReadOptionalDouble(since_col, &job.time_since_arrival, 0); !s.ok()) return s;
    // Without the column (or the field) a job has run on its isolated share so far.
    job.isolated_time = job.time_since_arrival;
    if (Status s = in.ReadOptionalDouble(iso_col, &job.isolated_time, 0); !s.ok()) return s;
    if (Status s = in.ReadOptionalDouble(slo_col, &job.slo_s, 0); !s.ok()) return s;
    if (slo_col >= 0 && !in.field(slo_col).empty()) {
      if (!(job.slo_s > 0)) return in.FieldError(slo_col, "must be > 0 (seconds to the deadline)");
      if (!(job.steps_left > 0)) return in.FieldError(slo_col, "needs steps_left > 0");
    }
    if (entity_col >= 0 && !in.field(entity_col).empty()) {
      const std::string& name = in.field(entity_col);
      for (size_t e = 0; e < p.entities.size(); ++e) {
        if (p.entities[e].name == name) job.entity = static_cast<int>(e);
      }
      if (job.entity < 0) return in.FieldError(entity_col, "has no entity weight");
      entity_used[job.entity] = true;
    }
    bool runs = false;
    for (size_t k = 0; k < p.types.size(); ++k) {
      double t;
      if (Status s = in.ReadDouble(tput_cols[k], &t, 0); !s.ok()) return s;
      job.throughput.push_back(t);
      runs = runs || (t > 0 && job.scale_factor <= p.types[k].gpus);
    }
    if (!runs) {
      return in.FieldError(sf_col, "the job runs on no GPU type (fewer GPUs than its scale "
                                   "factor, or zero throughput, on every type)");
    }
    p.jobs.push_back(std::move(job));
  }
  if (!in.status().ok()) return in.status();
  if (p.jobs.empty()) return Status::InvalidArgument(jobs_path + ": no jobs");
  for (size_t e = 0; e < p.entities.size(); ++e) {
    if (!entity_used[e]) {
      return Status::InvalidArgument("entity weights: " + Quoted(p.entities[e].name) +
                                     ": no job of " + jobs_path + " is in it");
    }
  }
  return p;
}

Status LoadJobPairs(const std::string& path, AllocationProblem* p) {
  using workload::CsvReader;
  auto r = CsvReader::Open(path);
  if (!r.ok()) return r.status();
  CsvReader& in = **r;
  if (Status s = in.ReadHeader(); !s.ok()) return s;
  int cols[5];
  const char* names[5] = {"job_a", "job_b", "type", "throughput_a", "throughput_b"};
  for (int i = 0; i < 5; ++i) {
    if (Status s = in.RequireColumn(names[i], &cols[i]); !s.ok()) return s;
  }
  auto find = [](const auto& items, const std::string& name) {
    for (size_t i = 0; i < items.size(); ++i) {
      if constexpr (std::is_same_v<std::decay_t<decltype(items[0])>, AllocJob>) {
        if (items[i].id == name) return static_cast<int>(i);
      } else {
        if (items[i].name == name) return static_cast<int>(i);
      }
    }
    return -1;
  };
  std::set<std::tuple<int, int, int>> seen;
  while (in.Next()) {
    JobPair pair;
    std::string a, b, type;
    if (Status s = in.ReadString(cols[0], &a); !s.ok()) return s;
    if (Status s = in.ReadString(cols[1], &b); !s.ok()) return s;
    if (Status s = in.ReadString(cols[2], &type); !s.ok()) return s;
    if ((pair.a = find(p->jobs, a)) < 0) return in.FieldError(cols[0], "is not a job of the jobs file");
    if ((pair.b = find(p->jobs, b)) < 0) return in.FieldError(cols[1], "is not a job of the jobs file");
    if (pair.a == pair.b) return in.FieldError(cols[1], "pairs a job with itself");
    if ((pair.type = find(p->types, type)) < 0) return in.FieldError(cols[2], "is not a GPU type of the cluster");
    if (p->jobs[pair.a].scale_factor != p->jobs[pair.b].scale_factor) {
      return in.FieldError(cols[1], "has another scale factor than job_a");
    }
    if (!seen.insert({std::min(pair.a, pair.b), std::max(pair.a, pair.b), pair.type}).second) {
      return in.FieldError(cols[1], "this pair is listed twice for the type");
    }
    if (Status s = in.ReadDouble(cols[3], &pair.throughput_a, 0); !s.ok()) return s;
    if (Status s = in.ReadDouble(cols[4], &pair.throughput_b, 0); !s.ok()) return s;
    p->pairs.push_back(pair);
  }
  return in.status();
}

}  // namespace schedkit::gavel
