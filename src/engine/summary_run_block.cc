#include <sstream>

#include "schedkit/run.h"

namespace schedkit {

std::vector<std::pair<std::string, std::string>> SummaryRunBlock(
    const PolicyRequest& request, const std::string& trace, const std::string& cluster,
    std::optional<double> runtime_factor, const Registries& registries,
    std::optional<MeasuredJobs> measured) {
  const CompatProfile& profile = ProfileFor(request.compat);
  const std::string placement = PlacementOf(request, registries);
  std::string admission = request.admission;
  if (const PolicyRegistry::Entry* entry = registries.policies.Find(request.policy)) {
    if (admission.empty()) admission = entry->default_admission;
  }
  std::vector<std::pair<std::string, std::string>> block = {
      {"policy", request.policy},
      {"placement", placement},
      {"admission", admission},
      {"compat", CompatModeName(request.compat)},
      {"trace", trace},
      {"cluster", cluster},
      {"seed", std::to_string(request.seed)}};
  if (runtime_factor) {
    // The stream's default form ("1", "1.5") is what summary.json has always recorded.
    std::ostringstream factor;
    factor << *runtime_factor;
    block.emplace_back("runtime_factor", factor.str());
  }
  if (!measured) measured = profile.measured;
  if (measured) {
    block.emplace_back("measured_jobs",
                       std::to_string(measured->first) + "-" + std::to_string(measured->last));
  }
  for (const auto& [key, value] : request.options) block.emplace_back("opt." + key, value);
  return block;
}

}  // namespace schedkit
