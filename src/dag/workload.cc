// Loading DAG workloads: tpch.json (spark-sched-sim's TPC-H profiles) and the native format.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "dag/flat_json.h"
#include "dag/workload_cache.h"
#include "schedkit/dag.h"
#include "schedkit/trace.h"

namespace schedkit {
namespace {

// nlohmann reports a number overflow without a position, naming the token in quotes
// ("number overflow parsing '1e400'"): the line of its first occurrence, or 0.
int LineOfQuotedToken(const std::string& text, const std::string& message) {
  const size_t open = message.find('\'');
  const size_t close = open == std::string::npos ? open : message.find('\'', open + 1);
  if (close == std::string::npos) return 0;
  const size_t at = text.find(message.substr(open + 1, close - open - 1));
  if (at == std::string::npos) return 0;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

// Reads a parsed document: nlohmann::ordered_json, or FlatJson::View for the fast path
// (same checks, same messages).
template <class Json>
class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  Status Error(const std::string& field, const std::string& what) const {
    return Status::InvalidArgument(file_ + ": field '" + field + "': " + what);
  }

  // Reads one wave map {"level": [ms, ...]}. `first_level` receives the first key in file
  // order (spark-sched-sim counts tasks at that level).
  Status ReadWave(const Json& j, const std::string& field, std::vector<DagDurations>* out,
                  int* first_level) const {
    if (!j.is_object()) return Error(field, "expected an object {level: [durations]}");
    for (auto it = j.begin(); it != j.end(); ++it) {
      // A copy that outlives strtol: FlatJson's key() returns a temporary, and `end` points
      // into the text (ASan: stack-use-after-scope when it was `it.key().c_str()`).
      const std::string key = it.key();
      const std::string key_field = field + "." + key;
      char* end = nullptr;
      const long level = std::strtol(key.c_str(), &end, 10);
      if (key.empty() || *end != '\0' || level <= 0 || level > 1000000) {
        return Error(key_field, "level must be a positive integer");
      }
      if (!it.value().is_array()) return Error(key_field, "expected an array of durations");
      DagDurations d;
      d.level = static_cast<int>(level);
      const Json& values = it.value();
      const size_t n = values.size();
      d.ms.reserve(n);
      for (size_t i = 0; i < n; ++i) {
        const Json& v = values[i];
        const double ms = v.is_number() ? v.template get<double>() : -1.0;
        if (!std::isfinite(ms) || ms < 0) {
          return Error(key_field + "[" + std::to_string(i) + "]",
                       "expected a finite duration >= 0 (ms)");
        }
        d.ms.push_back(ms);
      }
      if (first_level != nullptr && it == j.begin()) *first_level = d.level;
      for (const DagDurations& other : *out) {
        if (other.level == d.level) return Error(key_field, "level given twice");
      }
      out->push_back(std::move(d));
    }
    std::sort(out->begin(), out->end(),
              [](const DagDurations& a, const DagDurations& b) { return a.level < b.level; });
    return Status::Ok();
  }

  static size_t LevelSize(const std::vector<DagDurations>& wave, int level) {
    for (const DagDurations& d : wave) {
      if (d.level == level) return d.ms.size();
    }
    return 0;
  }

  Status ReadStage(const Json& j, const std::string& field, bool explicit_tasks,
                   DagStageProfile* stage) const {
    if (!j.is_object()) return Error(field, "expected an object");
    static const char* kWaves[] = {"first_wave", "rest_wave", "fresh_durations"};
    std::vector<DagDurations>* waves[] = {&stage->first_wave, &stage->rest_wave,
                                          &stage->fresh_durations};
    int first_level = -1;
    for (int w = 0; w < 3; ++w) {
      auto it = j.find(kWaves[w]);
      if (it == j.end()) return Error(field + "." + kWaves[w], "missing");
      SCHEDKIT_RETURN_IF_ERROR(ReadWave(*it, field + "." + kWaves[w], waves[w],
                                        w == 0 ? &first_level : nullptr));
    }
    if (stage->first_wave.empty()) return Error(field + ".first_wave", "has no level");
    auto nt = j.find("num_tasks");
    if (nt != j.end()) {
      if (!nt->is_number_integer() || nt->template get<int64_t>() < 1 || nt->template get<int64_t>() > 1000000) {
        return Error(field + ".num_tasks", "expected an integer in 1..1000000");
      }
      stage->num_tasks = static_cast<int>(nt->template get<int64_t>());
    } else if (explicit_tasks) {
      return Error(field + ".num_tasks", "missing");
    } else {
      // spark-sched-sim: tasks = first_wave + rest_wave sizes at the data's first level,
      // counted before preprocessing.
      stage->num_tasks = static_cast<int>(LevelSize(stage->first_wave, first_level) +
                                          LevelSize(stage->rest_wave, first_level));
      if (stage->num_tasks < 1) {
        return Error(field, "no task at the first level " + std::to_string(first_level));
      }
    }
    PreprocessStageProfile(stage);
    bool any = false;
    for (auto* w : waves) {
      for (const DagDurations& d : *w) any = any || !d.ms.empty();
    }
    if (!any) return Error(field, "no task duration at any level");
    return Status::Ok();
  }

  // A DAG {parents: [[...]], stages: [...]}.
  Status ReadDag(const Json& j, const std::string& field, bool explicit_tasks,
                 DagTemplate* dag) const {
    if (!j.is_object()) return Error(field, "expected an object");
    auto stages = j.find("stages");
    if (stages == j.end() || !stages->is_array() || stages->empty()) {
      return Error(field + ".stages", "expected a non-empty array");
    }
    auto parents = j.find("parents");
    if (parents == j.end() || !parents->is_array() || parents->size() != stages->size()) {
      return Error(field + ".parents", "expected an array with one list per stage");
    }
    const int n = static_cast<int>(stages->size());
    dag->stages.resize(n);
    dag->parents.resize(n);
    for (int s = 0; s < n; ++s) {
      const std::string sf = field + ".stages[" + std::to_string(s) + "]";
      SCHEDKIT_RETURN_IF_ERROR(ReadStage((*stages)[s], sf, explicit_tasks, &dag->stages[s]));
      const Json& p = (*parents)[s];
      const std::string pf = field + ".parents[" + std::to_string(s) + "]";
      if (!p.is_array()) return Error(pf, "expected an array of stage ids");
      for (const Json& v : p) {
        if (!v.is_number_integer() || v.template get<int64_t>() < 0 || v.template get<int64_t>() >= s) {
          return Error(pf, "parents must be stage ids below " + std::to_string(s) +
                               " (stages in topological order)");
        }
        const int parent = static_cast<int>(v.template get<int64_t>());
        if (std::find(dag->parents[s].begin(), dag->parents[s].end(), parent) !=
            dag->parents[s].end()) {
          return Error(pf, "parent " + std::to_string(parent) + " given twice");
        }
        dag->parents[s].push_back(parent);
      }
      std::sort(dag->parents[s].begin(), dag->parents[s].end());
    }
    return Status::Ok();
  }

  Result<DagWorkload> FromRoot(const Json& root) const {
    if (!root.is_object()) return Error("(root)", "expected an object");
    if (root.contains("schedkit_dag")) return LoadNative(root);
    if (root.contains("jobs")) return LoadTpch(root);
    return Error("(root)", "neither a native DAG file ('schedkit_dag') nor tpch.json ('jobs')");
  }

 private:
  Result<DagWorkload> LoadTpch(const Json& root) const {
    DagWorkload w;
    w.source = file_;
    const Json& jobs = MemberOrNull(root, "jobs");
    if (!jobs.is_object()) return Error("jobs", "expected an object {size: {query: dag}}");
    std::vector<std::string> sizes;
    for (auto it = jobs.begin(); it != jobs.end(); ++it) sizes.push_back(it.key());
    // Templates in (query, size) order; a job draws one uniformly, i.e. a uniform query and
    // an independent uniform size, as spark-sched-sim does.
    std::vector<std::string> queries;
    for (const std::string& size : sizes) {
      const Json& q = jobs[size];
      if (!q.is_object()) return Error("jobs." + size, "expected an object {query: dag}");
      for (auto it = q.begin(); it != q.end(); ++it) {
        if (std::find(queries.begin(), queries.end(), it.key()) == queries.end()) {
          queries.push_back(it.key());
        }
      }
    }
    std::stable_sort(queries.begin(), queries.end(), [](const std::string& a, const std::string& b) {
      return std::atol(a.c_str()) < std::atol(b.c_str());
    });
    for (const std::string& query : queries) {
      for (const std::string& size : sizes) {
        const Json& q = jobs[size];
        auto it = q.find(query);
        if (it == q.end()) return Error("jobs." + size + "." + query, "missing");
        DagTemplate dag;
        dag.name = "tpch-q" + query + "-" + size;
        SCHEDKIT_RETURN_IF_ERROR(ReadDag(*it, "jobs." + size + "." + query, false, &dag));
        w.dags.push_back(std::move(dag));
      }
    }
    if (w.dags.empty()) return Error("jobs", "no DAG");
    return w;
  }

  // The member `key` of `object`, or null when it has none: nlohmann::json's const
  // operator[] on a missing key is undefined behaviour (issue 21: a native file without
  // "dags", found by fuzz/dag_fuzz.cc, read freed memory). By value for the flat reader's
  // views (cheap handles that its iterators return by value), by reference for nlohmann.
  using Member = std::conditional_t<std::is_same_v<Json, FlatJson::View>, Json, const Json&>;
  static Member MemberOrNull(const Json& object, const char* key) {
    static const Json kNull;
    if (!object.is_object()) return kNull;
    auto it = object.find(key);
    if (it == object.end()) return kNull;
    return *it;
  }

  Result<DagWorkload> LoadNative(const Json& root) const {
    const Json& version = MemberOrNull(root, "schedkit_dag");
    if (!version.is_number_integer() || version.template get<int64_t>() != 1) {
      return Error("schedkit_dag", "unsupported version (expected 1)");
    }
    const Json& dags = MemberOrNull(root, "dags");
    if (!dags.is_array() || dags.empty()) return Error("dags", "expected a non-empty array");
    DagWorkload w;
    w.source = file_;
    for (size_t i = 0; i < dags.size(); ++i) {
      const std::string field = "dags[" + std::to_string(i) + "]";
      DagTemplate dag;
      const Json& name = dags[i].is_object() && dags[i].contains("name") ? dags[i]["name"] : Json();
      if (!name.is_string() || name.template get<std::string>().empty()) {
        return Error(field + ".name", "expected a non-empty string");
      }
      dag.name = name.template get<std::string>();
      SCHEDKIT_RETURN_IF_ERROR(ReadDag(dags[i], field, true, &dag));
      w.dags.push_back(std::move(dag));
    }
    return w;
  }

  std::string file_;
};

Result<DagWorkload> Parse(const std::string& file, const std::string& text);

Result<DagWorkload> Load(const std::string& file, const dag::DagCacheOptions& cache) {
  if (!cache.dir.empty()) {
    dag::MappedFile json;
    if (json.Open(file) && json.bytes().size() >= cache.min_bytes) {
      std::optional<DagWorkload> w = dag::ReadDagCache(cache.dir, json.bytes());
      if (w) {
        w->source = file;
        return std::move(*w);
      }
    }
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return Status::NotFound(file + ": cannot open DAG workload");
  // One allocation of the file's size (a stringstream grows and copies: ~3x the pages).
  std::string text;
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(file, ec);
  in.seekg(0, std::ios::end);
  const std::streamoff size = regular ? static_cast<std::streamoff>(in.tellg()) : -1;
  in.seekg(0, std::ios::beg);
  if (size >= 0) {
    text.resize(static_cast<size_t>(size));
    in.read(text.data(), size);
    text.resize(static_cast<size_t>(in.gcount()));
  } else {  // Not a regular file (a pipe; a directory reads as nothing, as before).
    in.clear();
    std::stringstream buf;
    buf << in.rdbuf();
    text = buf.str();
  }
  Result<DagWorkload> w = Parse(file, text);
  const bool cached = !cache.dir.empty() && text.size() >= cache.min_bytes;
  // A cache that cannot be written (read-only folder, full disk) only costs the next
  // process this parse again.
  if (w.ok() && cached) dag::WriteDagCache(cache.dir, text, *w);
  return w;
}

Result<DagWorkload> Parse(const std::string& file, const std::string& text) {
  // The fast path reads plain files (tpch.json: ~20 ms instead of ~400 ms); anything it does
  // not take goes to nlohmann, which accepts it the same way or names the error.
  FlatJson flat;
  if (flat.Parse(text)) return Loader<FlatJson::View>(file).FromRoot(flat.root());
  using Json = nlohmann::ordered_json;
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    return Status::InvalidArgument(file + ": not valid JSON: " + e.what());
  } catch (const Json::exception& e) {  // A number that does not fit a double (1e400).
    return Status::InvalidArgument(file + ":" + std::to_string(LineOfQuotedToken(text, e.what())) +
                                   ": a number out of range: " + e.what());
  }
  return Loader<Json>(file).FromRoot(root);
}

}  // namespace

void PreprocessStageProfile(DagStageProfile* stage) {
  // Drop from first_wave the values that also appear in fresh_durations at the same level,
  // as a multiset: each fresh value cancels one equal first-wave value.
  std::vector<double> fresh;
  std::vector<int> left;  // Per distinct fresh value (ascending), copies not yet cancelled.
  for (DagDurations& fw : stage->first_wave) {
    fresh.clear();
    for (const DagDurations& f : stage->fresh_durations) {
      if (f.level == fw.level) fresh.insert(fresh.end(), f.ms.begin(), f.ms.end());
    }
    if (fresh.empty()) continue;
    std::sort(fresh.begin(), fresh.end());
    left.clear();
    size_t distinct = 0;
    for (size_t i = 0; i < fresh.size(); ++i) {
      if (i > 0 && fresh[i] == fresh[distinct - 1]) {
        ++left[distinct - 1];
      } else {
        fresh[distinct++] = fresh[i];
        left.push_back(1);
      }
    }
    fresh.resize(distinct);
    std::vector<double> kept;
    kept.reserve(fw.ms.size());
    for (double v : fw.ms) {
      const auto it = std::lower_bound(fresh.begin(), fresh.end(), v);
      if (it == fresh.end() || *it != v || left[it - fresh.begin()] == 0) {
        kept.push_back(v);
      } else {
        --left[it - fresh.begin()];
      }
    }
    fw.ms = std::move(kept);
  }
  // Empty levels take the list of the nearest lower level (levels are sorted).
  const std::vector<double>* last = nullptr;
  for (DagDurations& fw : stage->first_wave) {
    if (fw.ms.empty() && last != nullptr) fw.ms = *last;
    last = &fw.ms;
  }
  double sum = 0;
  size_t count = 0;
  for (const auto* wave : {&stage->fresh_durations, &stage->first_wave, &stage->rest_wave}) {
    for (const DagDurations& d : *wave) {
      for (double v : d.ms) sum += v;
      count += d.ms.size();
    }
  }
  stage->rough_duration_ms = count > 0 ? sum / static_cast<double>(count) : 0.0;
}

Result<DagWorkload> LoadDagWorkload(const std::string& path) {
  return Load(path, dag::DefaultDagCacheOptions());
}

Result<DagWorkload> dag::LoadDagWorkloadCached(const std::string& path,
                                               const DagCacheOptions& cache) {
  return Load(path, cache);
}

std::string DefaultDagWorkloadPath() { return DataDir() + "/tpch/tpch.json"; }

}  // namespace schedkit
