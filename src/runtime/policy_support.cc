#include "runtime/policy_support.h"

#include <set>

namespace schedkit::runtime {

bool PolicyColocates(const std::string& policy) {
  // Kept true by runtime.RuntimePolicies.EveryPolicyRunsOrIsRefused, which fails when a
  // policy outside this list starts a group or a guest.
  static const std::set<std::string> kColocating = {"muri-s", "muri-l", "antman", "lucid"};
  return kColocating.count(policy) > 0;
}

Status CheckPolicyRunsOn(const std::string& policy, const Backend& backend) {
  if (PolicyColocates(policy) && !backend.SharesGpus()) {
    return Status::InvalidArgument(
        "--policy " + policy + ": co-locates jobs on shared GPUs, which the " + backend.Name() +
        " backend cannot do (it books each GPU for one job); use --backend local");
  }
  return Status::Ok();
}

}  // namespace schedkit::runtime
