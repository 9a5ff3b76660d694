// Cluster membership over time: nodes that join, drain, fail and recover during a
// simulation. The runtime's `schedkit drain` / `undrain` use the same vocabulary.
//
// A node's states and the changes between them:
//   absent --join--> up;  up --drain--> drained;  up or drained --fail--> down;
//   drained or down --recover--> up.
// A node whose first change is `join` is absent from t=0 until it joins; every other
// node starts up. Absent, drained and down nodes take no new job (they look fully
// booked in ClusterView::Resources and Capacity). A drained node's running jobs finish
// there; a failed node's running jobs are stopped at once, pending again (they pay the
// restart overhead when they start again), and reported to the policy in
// EventBatch::interrupted.
#ifndef SCHEDKIT_MEMBERSHIP_H_
#define SCHEDKIT_MEMBERSHIP_H_

#include <string>
#include <vector>

#include "schedkit/cluster.h"
#include "schedkit/job.h"
#include "schedkit/status.h"

namespace schedkit {

enum class MembershipChange { kJoin, kDrain, kFail, kRecover };

// "join", "drain", "fail", "recover".
Result<MembershipChange> ParseMembershipChange(const std::string& name);
const char* MembershipChangeName(MembershipChange c);

struct MembershipEvent {
  Time time_s = 0;
  int node = 0;  // Index in ClusterSpec::nodes.
  MembershipChange change = MembershipChange::kDrain;
};

// Reads a membership file: CSV with the header `time_s,node,event` (node = index in the
// cluster spec, event = join|drain|fail|recover), one change per line, in non-decreasing
// time. Every change must be legal from the node's state (see above). Errors name the
// file, line and field: "m.csv:4: field 'event': 'fail' on node 2, which is absent".
Result<std::vector<MembershipEvent>> LoadMembership(const std::string& path,
                                                    const ClusterSpec& cluster);

// The same checks on events built in code; `source` names them in errors.
Status ValidateMembership(const std::vector<MembershipEvent>& events, const ClusterSpec& cluster,
                          const std::string& source);

}  // namespace schedkit

#endif  // SCHEDKIT_MEMBERSHIP_H_
