#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <mutex>

#include <nlohmann/json.hpp>
#include "experiment/toml.h"

#include "schedkit/experiment.h"
#include "schedkit/plugin.h"
#include "workload/csv.h"

namespace schedkit {
namespace fs = std::filesystem;

namespace {

// A policy label names its runs' folders (with the cluster, workload and seed), which must
// fit a file name (255 bytes on common file systems).
constexpr size_t kMaxLabelChars = 100;

// "FILE:LINE: key 'K': what".
Status KeyError(const std::string& file, const toml::node* node, const std::string& key,
                const std::string& what) {
  const int line = node != nullptr ? static_cast<int>(node->source().begin.line) : 0;
  return Status::InvalidArgument(file + ":" + std::to_string(line) + ": key '" + key + "': " + what);
}

// A path from the config: relative to the config's folder; else under the data dir.
std::string ResolvePath(const std::string& config_dir, const std::string& path,
                        const std::string& data_subdir) {
  fs::path p(path);
  if (p.is_absolute()) return p.string();
  if (fs::exists(fs::path(config_dir) / p)) return fs::weakly_canonical(fs::path(config_dir) / p).string();
  const fs::path in_data = fs::path(DataDir()) / data_subdir / p;
  if (fs::exists(in_data)) return fs::weakly_canonical(in_data).string();
  return (fs::path(config_dir) / p).string();  // Fails later, naming this path.
}

Result<std::vector<std::string>> StringList(const std::string& file, const toml::table& t,
                                            const std::string& key) {
  std::vector<std::string> out;
  const toml::node* node = t.get(key);
  if (node == nullptr) return out;
  if (auto s = node->value<std::string>()) return std::vector<std::string>{*s};
  const toml::array* arr = node->as_array();
  if (arr == nullptr) return KeyError(file, node, key, "expected a string or a list of strings");
  for (const toml::node& e : *arr) {
    auto s = e.value<std::string>();
    if (!s) return KeyError(file, &e, key, "expected strings");
    out.push_back(*s);
  }
  return out;
}

Result<std::vector<double>> NumberList(const std::string& file, const toml::table& t,
                                       const std::string& key) {
  std::vector<double> out;
  const toml::node* node = t.get(key);
  if (node == nullptr) return out;
  if (auto v = node->value<double>()) return std::vector<double>{*v};
  const toml::array* arr = node->as_array();
  if (arr == nullptr) return KeyError(file, node, key, "expected a number or a list of numbers");
  for (const toml::node& e : *arr) {
    auto v = e.value<double>();
    if (!v) return KeyError(file, &e, key, "expected numbers");
    out.push_back(*v);
  }
  return out;
}

// A scalar key of `t`: `fallback` when absent; an error naming FILE:LINE when present with
// another type (a quoted number is not a number, a number is not a string).
Result<std::string> String(const std::string& file, const toml::table& t, const std::string& key,
                           const std::string& fallback) {
  const toml::node* node = t.get(key);
  if (node == nullptr) return fallback;
  if (auto v = node->value_exact<std::string>()) return *v;
  return KeyError(file, node, key, "expected a string");
}

Result<int64_t> Integer(const std::string& file, const toml::table& t, const std::string& key,
                        int64_t fallback, int64_t min, int64_t max) {
  const toml::node* node = t.get(key);
  if (node == nullptr) return fallback;
  auto v = node->value_exact<int64_t>();
  if (!v) return KeyError(file, node, key, "expected a whole number");
  if (*v < min || *v > max) {
    return KeyError(file, node, key,
                    "must be in " + std::to_string(min) + ".." + std::to_string(max) + ", got " +
                        std::to_string(*v));
  }
  return *v;
}

Result<double> Number(const std::string& file, const toml::table& t, const std::string& key,
                      double fallback) {
  const toml::node* node = t.get(key);
  if (node == nullptr) return fallback;
  if (node->is_string() || node->is_boolean()) return KeyError(file, node, key, "expected a number");
  auto v = node->value<double>();
  if (!v || !std::isfinite(*v)) return KeyError(file, node, key, "expected a finite number");
  return *v;
}

// Every key of `t` must be one of `known`: a typo is an error, never silently ignored.
Status OnlyKnownKeys(const std::string& file, const toml::table& t, const std::string& prefix,
                     std::initializer_list<std::string_view> known) {
  for (const auto& [k, v] : t) {
    if (std::find(known.begin(), known.end(), k.str()) != known.end()) continue;
    std::string list;
    for (std::string_view name : known) list += (list.empty() ? "" : ", ") + std::string(name);
    return KeyError(file, &v, prefix + std::string(k.str()), "unknown key (expected one of: " + list + ")");
  }
  return Status::Ok();
}

// A TOML option value as the text the option parser takes.
Result<std::string> OptionText(const std::string& file, const toml::node& v, const std::string& key) {
  if (auto s = v.value_exact<std::string>()) return *s;
  if (auto b = v.value_exact<bool>()) return std::string(*b ? "true" : "false");
  if (auto i = v.value_exact<int64_t>()) return std::to_string(*i);
  if (auto d = v.value_exact<double>()) return workload::FormatDouble(*d);
  if (const toml::array* arr = v.as_array()) {
    std::string out;
    for (const toml::node& e : *arr) {
      auto d = e.value<double>();
      if (!d) return KeyError(file, &e, key, "expected a list of numbers");
      out += (out.empty() ? "" : ":") + workload::FormatDouble(*d);
    }
    return out;
  }
  return KeyError(file, &v, key, "expected a string, number, bool or list of numbers");
}

Status ParsePolicies(const std::string& file, const toml::table& root, SweepConfig* config) {
  const toml::node* node = root.get("policy");
  const toml::array* arr = node != nullptr ? node->as_array() : nullptr;
  if (arr == nullptr || arr->empty()) {
    return KeyError(file, node, "policy", "give at least one [[policy]] table");
  }
  for (const toml::node& entry : *arr) {
    const toml::table* t = entry.as_table();
    if (t == nullptr) return KeyError(file, &entry, "policy", "expected [[policy]] tables");
    SCHEDKIT_RETURN_IF_ERROR(OnlyKnownKeys(file, *t, "policy.",
                                           {"name", "label", "placement", "admission", "options"}));
    SweepPolicy p;
    if (t->get("name") == nullptr) return KeyError(file, &entry, "policy.name", "missing");
    auto name = String(file, *t, "name", "");
    auto label = name.ok() ? String(file, *t, "label", *name) : name;
    auto placement = String(file, *t, "placement", "");
    auto admission = String(file, *t, "admission", "");
    for (const auto* r : {&name, &label, &placement, &admission}) {
      if (!r->ok()) return r->status();
    }
    p.request.policy = *name;
    p.label = *label;
    if (p.label.empty() || p.label.size() > kMaxLabelChars) {
      return KeyError(file, t->get("label") ? t->get("label") : &entry, "policy.label",
                      "must have 1.." + std::to_string(kMaxLabelChars) +
                          " characters (it names the runs' folders)");
    }
    p.request.placement = *placement;
    p.request.admission = *admission;
    p.request.compat = config->compat;
    const toml::node* options = t->get("options");
    if (options != nullptr && !options->is_table()) {
      return KeyError(file, options, "policy.options", "expected a table, e.g. { quantum_s = 600 }");
    }
    if (const toml::table* opts = (*t)["options"].as_table()) {
      for (const auto& [k, v] : *opts) {
        const std::string key(k.str());
        auto text = OptionText(file, v, "policy.options." + key);
        if (!text.ok()) return text.status();
        p.request.options[key] = *text;
      }
    }
    // A module the policy does not take is named at its own key's line.
    if (const auto* e = BuiltinRegistries().policies.Find(p.request.policy)) {
      std::string field;
      if (Status st = CheckModulesTaken(*e, p.request, &field); !st.ok()) {
        const bool module = field == "placement" || field == "admission";
        const toml::node* at = module ? t->get(field) : (*t)["options"][field].node();
        return KeyError(file, at, module ? "policy." + field : "policy.options." + field,
                        st.message());
      }
    }
    // Build it once now so that a typo fails before hours of runs.
    auto made = MakePolicy(p.request);
    if (!made.ok()) return KeyError(file, &entry, "policy", made.status().message());
    for (const SweepPolicy& other : config->policies) {
      if (other.label == p.label) {
        return KeyError(file, &entry, "policy.label", "'" + p.label + "' is used twice");
      }
    }
    config->policies.push_back(std::move(p));
  }
  return Status::Ok();
}

std::string Sanitize(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  }
  return s;
}

std::string Stem(const std::string& path) { return fs::path(path).stem().string(); }

}  // namespace

Result<SweepConfig> LoadSweepConfig(const std::string& path) {
  if (!fs::is_regular_file(path)) return Status::NotFound(path + ": no such sweep file");
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    return Status::InvalidArgument(path + ":" + std::to_string(e.source().begin.line) + ": " +
                                   std::string(e.description()));
  }
  SweepConfig config;
  config.source = path;
  const std::string dir = fs::path(path).parent_path().string();
  SCHEDKIT_RETURN_IF_ERROR(OnlyKnownKeys(path, root, "",
                                         {"name", "plugins", "python", "clusters", "seeds",
                                          "compat", "overhead_s", "runtime_factor", "measure_jobs",
                                          "workload", "policy"}));
  // Plugins first: the policies below are resolved by name, theirs as built-ins are.
  auto plugins = StringList(path, root, "plugins");
  if (!plugins.ok()) return plugins.status();
  for (size_t i = 0; i < plugins->size(); ++i) {
    const fs::path p((*plugins)[i]);
    const std::string file = p.is_absolute() ? p.string() : (fs::path(dir) / p).string();
    if (Status st = LoadPlugin(file); !st.ok()) {
      const toml::node* at = root.get("plugins");
      if (const toml::array* arr = at->as_array()) at = arr->get(i);
      return KeyError(path, at, "plugins", st.message());
    }
    config.plugins.push_back(file);
  }
  // Then Python policies, MODULE:CLASS, found next to the file first.
  auto python = StringList(path, root, "python");
  if (!python.ok()) return python.status();
  for (size_t i = 0; i < python->size(); ++i) {
    if (Status st = LoadPythonPolicy((*python)[i], fs::absolute(dir.empty() ? "." : dir).string()); !st.ok()) {
      const toml::node* at = root.get("python");
      if (const toml::array* arr = at->as_array()) at = arr->get(i);
      return KeyError(path, at, "python", st.message());
    }
  }
  auto name = String(path, root, "name", Stem(path));
  if (!name.ok()) return name.status();
  config.name = *name;
  auto compat_text = String(path, root, "compat", "none");
  if (!compat_text.ok()) return compat_text.status();
  auto compat = ParseCompatMode(*compat_text);
  if (!compat.ok()) return KeyError(path, root.get("compat"), "compat", compat.status().message());
  if (ProfileFor(*compat).own_engine) {
    // Lucid's simulator is its own engine over virtual clusters and side files; a sweep's
    // grid of single-cluster runs cannot express it.
    return KeyError(path, root.get("compat"), "compat",
                    "'" + *compat_text +
                        "' cannot be swept (it runs over virtual clusters with Lucid's side "
                        "files): use schedkit compare --compat lucid, or the clean-model "
                        "policies with compat = \"none\"");
  }
  config.compat = *compat;
  auto overhead_s = Number(path, root, "overhead_s", -1.0);
  if (!overhead_s.ok()) return overhead_s.status();
  if (root.get("overhead_s") != nullptr && *overhead_s < 0) {
    return KeyError(path, root.get("overhead_s"), "overhead_s", "must be >= 0");
  }
  config.overhead_s = *overhead_s;
  if (root.get("overhead_s") != nullptr && !ProfileFor(config.compat).restart_overheads) {
    return KeyError(path, root.get("overhead_s"), "overhead_s",
                    "compat '" + *compat_text + "' has no restart cost: remove overhead_s");
  }
  if (root.get("measure_jobs") != nullptr) {
    auto ids = NumberList(path, root, "measure_jobs");
    if (!ids.ok()) return ids.status();
    auto whole = [](double v) { return v >= 0 && v <= 9.0e15 && v == std::floor(v); };
    if (ids->size() != 2 || !whole((*ids)[0]) || !whole((*ids)[1]) || (*ids)[0] > (*ids)[1]) {
      return KeyError(path, root.get("measure_jobs"), "measure_jobs",
                      "expected [FIRST, LAST], two job ids >= 0 with FIRST <= LAST");
    }
    config.measured = MeasuredJobs{static_cast<int64_t>((*ids)[0]), static_cast<int64_t>((*ids)[1])};
  }
  if (root.get("runtime_factor") != nullptr) {
    auto factor = Number(path, root, "runtime_factor", 1.0);
    if (!factor.ok()) return factor.status();
    if (!(*factor > 0)) {
      return KeyError(path, root.get("runtime_factor"), "runtime_factor", "must be > 0");
    }
    config.runtime_factor = *factor;
  }

  auto clusters = StringList(path, root, "clusters");
  if (!clusters.ok()) return clusters.status();
  if (clusters->empty()) clusters->push_back("muri_n8g8.csv");
  for (const std::string& c : *clusters) config.clusters.push_back(ResolvePath(dir, c, "clusters"));

  auto seeds = NumberList(path, root, "seeds");
  if (!seeds.ok()) return seeds.status();
  for (double s : *seeds) {
    if (s < 0 || s != static_cast<double>(static_cast<uint64_t>(s))) {
      return KeyError(path, root.get("seeds"), "seeds", "seeds are whole numbers >= 0");
    }
    config.seeds.push_back(static_cast<uint64_t>(s));
  }
  if (config.seeds.empty()) config.seeds.push_back(0);

  const toml::table* workload = root["workload"].as_table();
  if (workload == nullptr) return KeyError(path, nullptr, "workload", "missing [workload] table");
  SCHEDKIT_RETURN_IF_ERROR(OnlyKnownKeys(path, *workload, "workload.",
                                         {"traces", "jobs", "jobs_per_hour", "durations",
                                          "max_gpus"}));
  auto traces = StringList(path, *workload, "traces");
  if (!traces.ok()) return traces.status();
  for (const std::string& t : *traces) config.traces.push_back(ResolvePath(dir, t, "traces"));
  for (const char* generator_key : {"jobs", "jobs_per_hour", "durations", "max_gpus"}) {
    if (!config.traces.empty() && workload->get(generator_key) != nullptr) {
      return KeyError(path, workload->get(generator_key), std::string("workload.") + generator_key,
                      "is for the generator and has no effect with traces: remove one of them");
    }
  }
  if (config.traces.empty()) {
    auto loads = NumberList(path, *workload, "jobs_per_hour");
    if (!loads.ok()) return loads.status();
    if (loads->empty()) {
      return KeyError(path, workload, "workload", "give traces, or jobs_per_hour for the generator");
    }
    config.loads = *loads;
    auto jobs = Integer(path, *workload, "jobs", 1000, 1, GeneratorConfig::kMaxJobs);
    if (!jobs.ok()) return jobs.status();
    config.generator.num_jobs = *jobs;
    auto max_gpus = Integer(path, *workload, "max_gpus", 0, 0, std::numeric_limits<int>::max());
    if (!max_gpus.ok()) return max_gpus.status();
    config.generator.max_gpus = static_cast<int>(*max_gpus);
    auto durations_text = String(path, *workload, "durations", "blox");
    if (!durations_text.ok()) return durations_text.status();
    Status named = SetGeneratorDurations(*durations_text, DataDir(), &config.generator);
    if (!named.ok()) {
      return KeyError(path, workload->get("durations"), "workload.durations", named.message());
    }
  }
  SCHEDKIT_RETURN_IF_ERROR(ParsePolicies(path, root, &config));
  return config;
}

namespace {

// FNV-1a, printed as 8 hex digits: short, stable across platforms and runs.
std::string ShortHash(const std::string& text) {
  uint32_t h = 2166136261u;
  for (unsigned char c : text) h = (h ^ c) * 16777619u;
  char buf[9];
  std::snprintf(buf, sizeof(buf), "%08x", h);
  return buf;
}

// File stems for run ids; a stem shared by two different paths gets its path's hash.
std::map<std::string, std::string> UniqueStems(const std::vector<std::string>& paths) {
  std::map<std::string, int> count;
  for (const std::string& p : std::set<std::string>(paths.begin(), paths.end())) ++count[Stem(p)];
  std::map<std::string, std::string> out;
  for (const std::string& p : paths) {
    out[p] = count[Stem(p)] > 1 ? Stem(p) + "-" + ShortHash(p) : Stem(p);
  }
  return out;
}

std::string Definition(const SweepConfig& config, const SweepPolicy& p, const std::string& cluster,
                       const std::string& trace, double load, uint64_t seed) {
  nlohmann::json j;
  j["policy"] = p.request.policy;
  j["label"] = p.label;
  j["placement"] = p.request.placement;
  j["admission"] = p.request.admission;
  j["options"] = p.request.options;  // A std::map: sorted keys.
  j["cluster"] = cluster;
  j["compat"] = CompatModeName(config.compat);
  j["overhead_s"] = config.overhead_s;
  // Only when given, so that the definitions of sweeps written without it do not change.
  if (config.runtime_factor) j["runtime_factor"] = *config.runtime_factor;
  if (config.measured) j["measure_jobs"] = {config.measured->first, config.measured->last};
  j["seed"] = seed;
  if (trace.empty()) {
    j["jobs"] = config.generator.num_jobs;
    j["jobs_per_hour"] = load;
    j["durations"] = GeneratorDurationsName(config.generator);
    // Only when set, so that the definitions of sweeps written without it do not change.
    if (config.generator.max_gpus > 0) j["max_gpus"] = config.generator.max_gpus;
  } else {
    j["trace"] = trace;
  }
  return j.dump();
}

}  // namespace

std::vector<SweepRun> ExpandGrid(const SweepConfig& config) {
  const std::map<std::string, std::string> cluster_stems = UniqueStems(config.clusters);
  const std::map<std::string, std::string> trace_stems = UniqueStems(config.traces);
  struct Workload {
    std::string trace;
    double load;
    uint64_t seed;
  };
  std::vector<Workload> workloads;
  for (uint64_t seed : config.seeds) {
    if (config.traces.empty()) {
      for (double load : config.loads) workloads.push_back({"", load, seed});
    } else {
      for (const std::string& t : config.traces) workloads.push_back({t, 0, seed});
    }
  }
  std::vector<SweepRun> runs;
  for (const std::string& cluster : config.clusters) {
    for (const Workload& w : workloads) {
      for (const SweepPolicy& p : config.policies) {
        SweepRun r;
        r.index = runs.size();
        r.policy = &p;
        r.cluster = cluster;
        r.trace = w.trace;
        r.load = w.load;
        r.seed = w.seed;
        const std::string load = w.trace.empty() ? workload::FormatDouble(w.load) : "";
        std::string options;
        for (const auto& [k, v] : p.request.options) options += (options.empty() ? "" : ";") + k + "=" + v;
        const std::string& cluster_stem = cluster_stems.at(cluster);
        const std::string trace_stem = w.trace.empty() ? "generated" : trace_stems.at(w.trace);
        r.id = Sanitize(p.label + "__" + cluster_stem + "__" +
                        (w.trace.empty() ? "load" + load : trace_stem) + "__seed" +
                        std::to_string(w.seed));
        r.definition = Definition(config, p, cluster, w.trace, w.load, w.seed);
        r.params = {{"run_id", r.id},
                    {"policy", p.label},
                    {"policy_name", p.request.policy},
                    {"placement", p.request.placement},
                    {"admission", p.request.admission},
                    {"options", options},
                    {"cluster", cluster_stem},
                    {"trace", trace_stem},
                    {"jobs_per_hour", load},
                    {"seed", std::to_string(w.seed)},
                    {"compat", CompatModeName(config.compat)}};
        runs.push_back(std::move(r));
      }
    }
  }
  return runs;
}

Result<std::pair<int, int>> ParseShard(const std::string& text) {
  const size_t slash = text.find('/');
  int64_t i = -1, n = -1;
  if (slash == std::string::npos || !workload::ParseInt64(text.substr(0, slash), &i) ||
      !workload::ParseInt64(text.substr(slash + 1), &n) || n < 1 || i < 0 || i >= n) {
    return Status::InvalidArgument("--shard '" + text + "': expected i/n with 0 <= i < n");
  }
  return std::make_pair(static_cast<int>(i), static_cast<int>(n));
}

namespace {

std::string RunDir(const std::string& out, const SweepRun& r) {
  return (fs::path(out) / "runs" / r.id).string();
}

std::string DefinitionPath(const std::string& out, const SweepRun& r) {
  return (fs::path(RunDir(out, r)) / "definition.json").string();
}

// A run's folder holds a finished run (summary.json), and of this very definition.
enum class RunStatus { kNotRun, kFinished, kChanged };

RunStatus StatusOf(const std::string& out, const SweepRun& r) {
  if (!fs::exists(fs::path(RunDir(out, r)) / "summary.json")) return RunStatus::kNotRun;
  std::ifstream in(DefinitionPath(out, r));
  std::string recorded((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return recorded == r.definition ? RunStatus::kFinished : RunStatus::kChanged;
}

bool Finished(const std::string& out, const SweepRun& r) {
  return StatusOf(out, r) == RunStatus::kFinished;
}

PolicyRequest RequestOf(const SweepRun& run) {
  PolicyRequest request = run.policy->request;
  request.seed = run.seed;
  return request;
}

// simulate's run block (the same builder), then where the run sits in the sweep.
std::vector<std::pair<std::string, std::string>> RunBlock(const SweepConfig& config,
                                                          const SweepRun& run) {
  auto block = SummaryRunBlock(RequestOf(run), run.trace.empty() ? "generated" : run.trace,
                               run.cluster, config.runtime_factor, BuiltinRegistries(),
                               config.measured);
  block.emplace_back("run_id", run.id);
  block.emplace_back("label", run.policy->label);
  if (run.trace.empty()) {
    block.emplace_back("jobs", std::to_string(config.generator.num_jobs));
    block.emplace_back("jobs_per_hour", workload::FormatDouble(run.load));
    block.emplace_back("durations", GeneratorDurationsName(config.generator));
    if (config.generator.max_gpus > 0) {
      block.emplace_back("max_gpus", std::to_string(config.generator.max_gpus));
    }
  }
  return block;
}

Status RunOne(const SweepConfig& config, const SweepRun& run, const std::string& out) {
  Result<Trace> trace = Status::Internal("unset");
  if (run.trace.empty()) {
    GeneratorConfig gen = config.generator;
    gen.jobs_per_hour = run.load;
    gen.seed = run.seed;
    trace = GenerateTrace(gen);
  } else {
    trace = LoadTrace(run.trace);
  }
  if (!trace.ok()) return trace.status();
  auto cluster = LoadClusterSpec(run.cluster);
  if (!cluster.ok()) return cluster.status();
  SimulatorOptions options;
  options.runtime_factor = config.runtime_factor;
  options.measured = config.measured;
  // A generated Gavel workload's table is also the run's (co-located pairs for the policies).
  if (run.trace.empty() && config.generator.durations == GeneratorConfig::Durations::kGavel) {
    Result<ThroughputTable> table = ThroughputTable::LoadGavel(config.generator.gavel_throughputs_path);
    if (!table.ok()) return table.status();
    options.throughputs = std::make_shared<const ThroughputTable>(std::move(table).value());
  }
  if (config.overhead_s >= 0) {
    options.overheads = RestartOverheads(config.overhead_s);
  } else {
    auto table = DefaultRestartOverheads();
    if (!table.ok()) return table.status();
    options.overheads = *table;
  }
  auto result = RunSimulation(*trace, *cluster, RequestOf(run), options);
  if (!result.ok()) return result.status();
  const std::string dir = RunDir(out, run);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(dir + ": " + ec.message());
  // A stale run's summary goes first, so that a crash from here on leaves an unfinished run.
  fs::remove(dir + "/summary.json", ec);
  {
    std::ofstream def(DefinitionPath(out, run));
    def << run.definition;
    if (!def) return Status::IoError(DefinitionPath(out, run) + ": write failed");
  }
  SCHEDKIT_RETURN_IF_ERROR(WriteJobsCsv(*result->recorder, dir + "/jobs.csv"));
  SCHEDKIT_RETURN_IF_ERROR(WriteTimeSeriesCsv(*result->recorder, dir + "/timeseries.csv"));
  SCHEDKIT_RETURN_IF_ERROR(result->policy->WriteOutputs(dir));
  // summary.json last, by rename: its presence means the run is complete.
  SCHEDKIT_RETURN_IF_ERROR(
      WriteSummaryJson(result->summary, RunBlock(config, run), dir + "/summary.json.tmp"));
  fs::rename(dir + "/summary.json.tmp", dir + "/summary.json", ec);
  if (ec) return Status::IoError(dir + "/summary.json: " + ec.message());
  return Status::Ok();
}

const char* const kMetrics[] = {"jobs",         "rejected",        "unfinished",   "avg_jct_s",
                                "p50_jct_s",    "p95_jct_s",       "p99_jct_s",    "makespan_s",
                                "avg_queue_s",  "p999_queue_s",    "avg_slowdown", "p99_slowdown",
                                "gpu_utilization", "preemptions",  "events",       "wall_s"};

}  // namespace

Status WriteSweepResults(const SweepConfig& config, const std::string& out_dir) {
  const std::vector<SweepRun> grid = ExpandGrid(config);
  const std::string path = out_dir + "/results.csv";
  std::ofstream out(path + ".tmp");
  if (!out) return Status::IoError(path + ": cannot open for writing");
  bool header = false;
  for (const SweepRun& r : grid) {
    if (!header) {
      for (const auto& [k, v] : r.params) out << k << ',';
      for (size_t m = 0; m < std::size(kMetrics); ++m) out << (m ? "," : "") << kMetrics[m];
      out << '\n';
      header = true;
    }
    if (!Finished(out_dir, r)) continue;
    std::ifstream in(RunDir(out_dir, r) + "/summary.json");
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Status::IoError(RunDir(out_dir, r) + "/summary.json: not JSON");
    for (const auto& [k, v] : r.params) out << workload::CsvField(v) << ',';
    for (size_t m = 0; m < std::size(kMetrics); ++m) {
      out << (m ? "," : "");
      if (j.contains(kMetrics[m])) out << j[kMetrics[m]].dump();
    }
    out << '\n';
  }
  out.close();
  if (!out) return Status::IoError(path + ": write failed");
  std::error_code ec;
  fs::rename(path + ".tmp", path, ec);
  return ec ? Status::IoError(path + ": " + ec.message()) : Status::Ok();
}

Result<SweepReport> RunSweep(const SweepConfig& config, const SweepOptions& options) {
  const std::vector<SweepRun> grid = ExpandGrid(config);
  std::vector<const SweepRun*> todo;
  SweepReport report;
  for (const SweepRun& r : grid) {
    if (static_cast<int>(r.index % options.num_shards) != options.shard) continue;
    ++report.total;
    switch (StatusOf(options.out_dir, r)) {
      case RunStatus::kFinished: ++report.skipped; break;
      case RunStatus::kChanged: ++report.changed; todo.push_back(&r); break;
      case RunStatus::kNotRun: todo.push_back(&r); break;
    }
  }
  std::mutex mu;
  size_t done = report.skipped;
  ParallelFor(
      todo.size(), options.threads,
      [&](size_t i) {
        const Status st = RunOne(config, *todo[i], options.out_dir);
        std::lock_guard<std::mutex> lock(mu);
        ++done;
        if (st.ok()) {
          ++report.ran;
        } else {
          ++report.failed;
          report.errors.push_back(todo[i]->id + ": " + st.message());
        }
        if (options.progress) options.progress(done, report.total, *todo[i]);
      },
      options.stop);
  report.interrupted = options.stop != nullptr && options.stop->load() &&
                       report.ran + report.failed + report.skipped < report.total;
  SCHEDKIT_RETURN_IF_ERROR(WriteSweepResults(config, options.out_dir));
  return report;
}

}  // namespace schedkit
