// ConfigFromOptions: the `--opt` keys of `--compat lucid` (docs/lucid.md).
#include <iterator>
#include <set>
#include <string>

#include "lucid/venus.h"
#include "schedkit/lucid.h"

namespace schedkit::lucid {
namespace {

Result<bool> ParseBool(const std::string& key, const std::string& v) {
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  return Status::InvalidArgument("--opt " + key + "='" + v + "': expected true or false");
}

struct NamedPolicy {
  CompatPolicy policy;
  const char* name;
};
constexpr NamedPolicy kCompatPolicies[] = {{CompatPolicy::kFifo, "fifo"},
                                           {CompatPolicy::kSjf, "sjf"},
                                           {CompatPolicy::kQssf, "qssf"},
                                           {CompatPolicy::kTiresias, "tiresias"},
                                           {CompatPolicy::kLucid, "lucid"}};

}  // namespace

Result<CompatPolicy> ParseCompatPolicy(const std::string& name) {
  for (const NamedPolicy& p : kCompatPolicies) {
    if (name == p.name) return p.policy;
  }
  return Status::InvalidArgument("--compat lucid: unknown policy '" + name +
                                 "' (expected fifo, sjf, qssf, tiresias or lucid)");
}

const char* CompatPolicyName(CompatPolicy policy) {
  for (const NamedPolicy& p : kCompatPolicies) {
    if (p.policy == policy) return p.name;
  }
  return "unknown";
}

Result<Config> ConfigFromOptions(CompatPolicy policy,
                                 const std::map<std::string, std::string>& opts) {
  static const std::set<std::string> kKeys = {"lucid_dir", "vc_config", "estimates", "share_scores",
                                              "colocate",  "forecast",  "profiler",  "threads"};
  for (const auto& [k, v] : opts) {
    if (kKeys.count(k) == 0) {
      return Status::InvalidArgument(
          "--compat lucid: unknown option '" + k +
          "' (known: lucid_dir, vc_config, estimates, share_scores, colocate, forecast, "
          "profiler, threads)");
    }
  }
  auto get = [&](const std::string& key, const std::string& lucid_name) -> Result<std::string> {
    auto it = opts.find(key);
    if (it != opts.end()) return it->second;
    auto dir = opts.find("lucid_dir");
    if (dir != opts.end()) return dir->second + "/" + lucid_name;
    return Status::InvalidArgument("--compat lucid: give --opt " + key +
                                   "=FILE or --opt lucid_dir=DIR (with " + lucid_name + ")");
  };
  Config c;
  c.policy = policy;
  c.profiler.donor_vcs.assign(std::begin(kVenusProfilerDonors), std::end(kVenusProfilerDonors));
  c.profiler.lender_vc = kVenusLenderVc;
  auto vc = get("vc_config", "vc_config.csv");
  if (!vc.ok()) return vc.status();
  auto vcs = LoadVcConfig(*vc);
  if (!vcs.ok()) return vcs.status();
  c.vcs = std::move(*vcs);
  if (policy == CompatPolicy::kQssf || policy == CompatPolicy::kLucid) {
    auto path =
        get("estimates", policy == CompatPolicy::kQssf ? "Venus_Sept_lgb.csv"
                                                       : "Venus_Sept_ebm_weekly_updated.csv");
    if (!path.ok()) return path.status();
    auto est = LoadEstimates(*path);
    if (!est.ok()) return est.status();
    c.estimates = std::move(*est);
  }
  if (policy == CompatPolicy::kLucid) {
    auto single = get("share_scores", "single_data.csv");
    if (!single.ok()) return single.status();
    auto scores = LoadShareScores(*single);
    if (!scores.ok()) return scores.status();
    c.share_scores = std::move(*scores);
    auto colo = get("colocate", "colocate_info.csv");
    if (!colo.ok()) return colo.status();
    auto speeds = LoadColocateSpeeds(*colo);
    if (!speeds.ok()) return speeds.status();
    c.colocate_speeds = std::move(*speeds);
    auto fc = get("forecast", "Venus_throughput_pred.csv");
    if (!fc.ok()) return fc.status();
    auto forecast = LoadThroughputForecast(*fc);
    if (!forecast.ok()) return forecast.status();
    c.forecast = std::move(*forecast);
  }
  if (auto it = opts.find("profiler"); it != opts.end()) {
    auto b = ParseBool("profiler", it->second);
    if (!b.ok()) return b.status();
    c.profiler.enabled = *b;
  }
  if (auto it = opts.find("threads"); it != opts.end()) {
    try {
      size_t used = 0;
      c.threads = std::stoi(it->second, &used);
      if (used != it->second.size() || c.threads < 1) throw std::invalid_argument("");
    } catch (const std::exception&) {
      return Status::InvalidArgument("--opt threads='" + it->second +
                                     "': expected an integer >= 1");
    }
  }
  return c;
}

}  // namespace schedkit::lucid
