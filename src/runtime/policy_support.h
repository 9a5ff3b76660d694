// Which registered policies the runtime can carry out on which backend, and why not the
// others: `schedkit serve` refuses those at start rather than drift out of step with them.
#ifndef SCHEDKIT_RUNTIME_POLICY_SUPPORT_H_
#define SCHEDKIT_RUNTIME_POLICY_SUPPORT_H_

#include <string>

#include "runtime/backend.h"
#include "schedkit/status.h"

namespace schedkit::runtime {

// True iff `policy` may start jobs in co-location groups or as guests (StartDecision).
bool PolicyColocates(const std::string& policy);

// OK, or why `policy` cannot run on `backend` (a one-line reason naming both).
Status CheckPolicyRunsOn(const std::string& policy, const Backend& backend);

}  // namespace schedkit::runtime

#endif  // SCHEDKIT_RUNTIME_POLICY_SUPPORT_H_
