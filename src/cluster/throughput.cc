// The throughput model (schedkit/throughput.h) and Gavel's table reader.
#include "schedkit/throughput.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>
#include <utility>

#include "workload/csv.h"

namespace schedkit {

double SpeedOn(const JobSpec& job, const std::string& gpu_type) {
  const std::vector<TypeSpeed>& speeds = job.profile.type_speeds;
  if (speeds.empty() || gpu_type == kGenericGpuType) return 1;
  auto it = std::lower_bound(
      speeds.begin(), speeds.end(), gpu_type,
      [](const TypeSpeed& s, const std::string& type) { return s.gpu_type < type; });
  return it != speeds.end() && it->gpu_type == gpu_type ? it->speed : 0;
}

double PlacementSpeed(const JobSpec& job, const Placement& placement,
                      const ClusterSpec& cluster) {
  // SpeedOn is 1 on every type for a job that lists no speeds.
  if (job.profile.type_speeds.empty()) return placement.shares.empty() ? 0 : 1;
  double speed = 0;
  bool first = true;
  for (const NodeShare& s : placement.shares) {
    const double here = SpeedOn(job, cluster.nodes[s.node].gpu_type);
    speed = first ? here : std::min(speed, here);
    first = false;
  }
  return speed;
}

bool WithinOneType(const Placement& placement, const ClusterSpec& cluster) {
  for (const NodeShare& s : placement.shares) {
    if (cluster.nodes[s.node].gpu_type != cluster.nodes[placement.shares[0].node].gpu_type) {
      return false;
    }
  }
  return true;
}

namespace {

using Key = std::pair<std::string, int>;  // (job type, scale factor)

std::string KeyText(const Key& k) {
  return "('" + k.first + "', " + std::to_string(k.second) + ")";
}

// Parses "('ResNet-50 (batch size 64)', 4)".
bool ParseKey(std::string_view text, Key* key) {
  if (text.size() < 7 || text.substr(0, 2) != "('" || text.back() != ')') return false;
  const size_t sep = text.rfind("', ");
  if (sep == std::string_view::npos || sep < 2) return false;
  int64_t sf = 0;
  if (!workload::ParseInt64(text.substr(sep + 3, text.size() - 1 - (sep + 3)), &sf) || sf < 1 ||
      sf > (1 << 20)) {
    return false;
  }
  key->first = std::string(text.substr(2, sep - 2));
  key->second = static_cast<int>(sf);
  return true;
}

}  // namespace

struct ThroughputTable::Data {
  struct Entry {
    double isolated = 0;                           // 0 when not measured.
    std::map<Key, std::array<double, 2>> pairs;  // Other job -> {own, other} steps/s.
  };
  std::string source;
  std::map<std::string, std::map<Key, Entry>> types;  // GPU type -> job -> entry.
};

Result<ThroughputTable> ThroughputTable::LoadGavel(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::NotFound(path + ": cannot open the Gavel throughput table");
  nlohmann::json root = nlohmann::json::parse(f, /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    return Status::InvalidArgument(path + ": not a JSON object");
  }
  auto data = std::make_shared<Data>();
  data->source = path;
  for (auto type = root.begin(); type != root.end(); ++type) {
    if (!type->is_object()) {
      return Status::InvalidArgument(path + ": GPU type '" + type.key() + "' is not an object");
    }
    std::map<Key, Data::Entry>& jobs = data->types[type.key()];
    for (auto job = type->begin(); job != type->end(); ++job) {
      const std::string at = path + ": " + type.key() + ": key '" + job.key() + "'";
      Key key;
      if (!ParseKey(job.key(), &key)) {
        return Status::InvalidArgument(at + " is not \"('JOB TYPE', SCALE_FACTOR)\"");
      }
      if (!job->is_object()) return Status::InvalidArgument(at + " is not an object");
      Data::Entry& entry = jobs[key];
      for (auto other = job->begin(); other != job->end(); ++other) {
        if (other.key() == "null") {
          if (!other->is_number() || !(other->get<double>() >= 0)) {
            return Status::InvalidArgument(at + ": \"null\" is not a throughput >= 0");
          }
          entry.isolated = other->get<double>();
          continue;
        }
        Key pair;
        if (!ParseKey(other.key(), &pair)) {
          return Status::InvalidArgument(at + ": pair key '" + other.key() +
                                         "' is not \"('JOB TYPE', SCALE_FACTOR)\"");
        }
        if (!other->is_array() || other->size() != 2 || !(*other)[0].is_number() ||
            !(*other)[1].is_number()) {
          return Status::InvalidArgument(at + ": pair '" + other.key() +
                                         "' is not [own steps/s, other steps/s]");
        }
        entry.pairs[pair] = {(*other)[0].get<double>(), (*other)[1].get<double>()};
      }
    }
  }
  ThroughputTable table;
  table.data_ = std::move(data);
  return table;
}

const std::string& ThroughputTable::source() const { return data_->source; }

std::vector<std::string> ThroughputTable::GpuTypes() const {
  std::vector<std::string> out;
  for (const auto& [type, jobs] : data_->types) out.push_back(type);
  return out;
}

std::vector<std::string> ThroughputTable::JobTypes(const std::string& gpu_type,
                                                   int scale_factor) const {
  std::vector<std::string> out;
  auto type = data_->types.find(gpu_type);
  if (type == data_->types.end()) return out;
  for (const auto& [key, entry] : type->second) {
    if (key.second == scale_factor && entry.isolated > 0) out.push_back(key.first);
  }
  return out;  // Map order: sorted by job type.
}

std::string ThroughputTable::JobType(const std::string& model, int batch_size) {
  return batch_size > 0 ? model + " (batch size " + std::to_string(batch_size) + ")" : model;
}

void ThroughputTable::SplitJobType(const std::string& job_type, std::string* model,
                                   int* batch_size) {
  static constexpr std::string_view kBatch = " (batch size ";
  *model = job_type;
  *batch_size = 0;
  const size_t pos = job_type.rfind(kBatch);
  if (pos == std::string::npos || job_type.back() != ')') return;
  std::string_view digits(job_type.data() + pos + kBatch.size(),
                          job_type.size() - 1 - (pos + kBatch.size()));
  int64_t batch = 0;
  if (!workload::ParseInt64(digits, &batch) || batch < 1 || batch > (1 << 30)) return;
  *model = job_type.substr(0, pos);
  *batch_size = static_cast<int>(batch);
}

Result<int> ThroughputTable::MeasuredScaleFactor(const std::string& gpu_type,
                                                 const std::string& job_type,
                                                 int scale_factor) const {
  auto type = data_->types.find(gpu_type);
  if (type == data_->types.end()) {
    return Status::NotFound(data_->source + ": no GPU type '" + gpu_type + "'");
  }
  int best = 0;
  for (auto it = type->second.lower_bound({job_type, 0});
       it != type->second.end() && it->first.first == job_type && it->first.second <= scale_factor;
       ++it) {
    if (it->second.isolated > 0) best = it->first.second;
  }
  if (best == 0) {
    return Status::NotFound(data_->source + ": no throughput for '" + job_type + "' on GPU type '" +
                            gpu_type + "' at or below scale factor " +
                            std::to_string(scale_factor));
  }
  return best;
}

Result<double> ThroughputTable::Isolated(const std::string& gpu_type, const std::string& job_type,
                                         int scale_factor) const {
  auto type = data_->types.find(gpu_type);
  if (type != data_->types.end()) {
    auto it = type->second.find({job_type, scale_factor});
    if (it != type->second.end() && it->second.isolated > 0) return it->second.isolated;
  }
  return Status::NotFound(data_->source + ": no throughput for " +
                          KeyText({job_type, scale_factor}) + " on GPU type '" + gpu_type + "'");
}

Result<std::array<double, 2>> ThroughputTable::Colocated(const std::string& gpu_type,
                                                         const std::string& a, int a_scale_factor,
                                                         const std::string& b,
                                                         int b_scale_factor) const {
  auto type = data_->types.find(gpu_type);
  if (type != data_->types.end()) {
    auto it = type->second.find({a, a_scale_factor});
    if (it != type->second.end()) {
      auto pair = it->second.pairs.find({b, b_scale_factor});
      if (pair != it->second.pairs.end()) return pair->second;
    }
  }
  return Status::NotFound(data_->source + ": no co-located throughput for " +
                          KeyText({a, a_scale_factor}) + " beside " +
                          KeyText({b, b_scale_factor}) + " on GPU type '" + gpu_type + "'");
}

Result<std::vector<TypeSpeed>> ThroughputTable::Speeds(const std::string& job_type,
                                                       int scale_factor,
                                                       const std::string& reference) const {
  Result<int> ref_sf = MeasuredScaleFactor(reference, job_type, scale_factor);
  if (!ref_sf.ok()) return ref_sf.status();
  const double ref = *Isolated(reference, job_type, *ref_sf);
  std::vector<TypeSpeed> speeds;
  for (const auto& [type, jobs] : data_->types) {
    Result<int> sf = MeasuredScaleFactor(type, job_type, scale_factor);
    if (!sf.ok()) continue;  // Not measured there: the job cannot run on that type.
    // x / x is exactly 1: the reference type keeps the job's solo speed bit for bit.
    speeds.push_back({type, *Isolated(type, job_type, *sf) / ref});
  }
  return speeds;  // Map order: sorted by type.
}

Result<double> ThroughputTable::ColocatedRate(const JobSpec& job, const JobSpec& other,
                                              const std::string& gpu_type) const {
  const std::string a = JobType(job.profile.model, job.profile.batch_size);
  const std::string b = JobType(other.profile.model, other.profile.batch_size);
  Result<std::array<double, 2>> pair = Colocated(gpu_type, a, job.gpus, b, other.gpus);
  if (!pair.ok()) return pair.status();
  Result<double> alone = Isolated(gpu_type, a, job.gpus);
  if (!alone.ok()) return alone.status();
  return (*pair)[0] / *alone;
}

}  // namespace schedkit
