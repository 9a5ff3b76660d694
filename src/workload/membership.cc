#include "schedkit/membership.h"

#include <cmath>

#include "workload/csv.h"

namespace schedkit {
namespace {

enum class NodeState { kAbsent, kUp, kDrained, kDown };

const char* StateName(NodeState s) {
  switch (s) {
    case NodeState::kAbsent: return "absent";
    case NodeState::kUp: return "up";
    case NodeState::kDrained: return "drained";
    case NodeState::kDown: return "down";
  }
  return "?";
}

// The state `change` leads to from `from`, or false if it is not allowed there.
bool Next(NodeState from, MembershipChange change, NodeState* to) {
  switch (change) {
    case MembershipChange::kJoin:
      *to = NodeState::kUp;
      return from == NodeState::kAbsent;
    case MembershipChange::kDrain:
      *to = NodeState::kDrained;
      return from == NodeState::kUp;
    case MembershipChange::kFail:
      *to = NodeState::kDown;
      return from == NodeState::kUp || from == NodeState::kDrained;
    case MembershipChange::kRecover:
      *to = NodeState::kUp;
      return from == NodeState::kDrained || from == NodeState::kDown;
  }
  return false;
}

// Initial states: absent where the node's first change is a join, up elsewhere.
std::vector<NodeState> InitialStates(const std::vector<MembershipEvent>& events, size_t nodes) {
  std::vector<NodeState> state(nodes, NodeState::kUp);
  std::vector<bool> seen(nodes, false);
  for (const MembershipEvent& e : events) {
    if (e.node < 0 || static_cast<size_t>(e.node) >= nodes || seen[e.node]) continue;
    seen[e.node] = true;
    if (e.change == MembershipChange::kJoin) state[e.node] = NodeState::kAbsent;
  }
  return state;
}

// Why event `e` cannot follow `previous_time` given the node states, or "" if it can;
// on success, moves the node to its new state.
std::string Check(const MembershipEvent& e, Time previous_time, size_t nodes,
                  std::vector<NodeState>* state) {
  if (!std::isfinite(e.time_s) || e.time_s < 0) return "time_s: must be a finite number >= 0";
  if (e.time_s < previous_time) return "time_s: times must not decrease";
  if (e.node < 0 || static_cast<size_t>(e.node) >= nodes) {
    return "node: " + std::to_string(e.node) + " is not a node of the cluster (0.." +
           std::to_string(static_cast<int64_t>(nodes) - 1) + ")";
  }
  NodeState to;
  if (!Next((*state)[e.node], e.change, &to)) {
    return std::string("event: '") + MembershipChangeName(e.change) + "' on node " +
           std::to_string(e.node) + ", which is " + StateName((*state)[e.node]);
  }
  (*state)[e.node] = to;
  return "";
}

// Index of the first change that is not legal where it comes, with the reason ("FIELD:
// what"), or -1 if all are.
int FirstIllegal(const std::vector<MembershipEvent>& events, size_t nodes, std::string* why) {
  std::vector<NodeState> state = InitialStates(events, nodes);
  Time previous = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    *why = Check(events[i], previous, nodes, &state);
    if (!why->empty()) return static_cast<int>(i);
    previous = events[i].time_s;
  }
  return -1;
}

}  // namespace

Result<MembershipChange> ParseMembershipChange(const std::string& name) {
  for (MembershipChange c : {MembershipChange::kJoin, MembershipChange::kDrain,
                             MembershipChange::kFail, MembershipChange::kRecover}) {
    if (name == MembershipChangeName(c)) return c;
  }
  return Status::InvalidArgument("'" + name + "' is not a membership change (join, drain, fail, recover)");
}

const char* MembershipChangeName(MembershipChange c) {
  switch (c) {
    case MembershipChange::kJoin: return "join";
    case MembershipChange::kDrain: return "drain";
    case MembershipChange::kFail: return "fail";
    case MembershipChange::kRecover: return "recover";
  }
  return "?";
}

Status ValidateMembership(const std::vector<MembershipEvent>& events, const ClusterSpec& cluster,
                          const std::string& source) {
  std::string why;
  const int bad = FirstIllegal(events, cluster.nodes.size(), &why);
  if (bad < 0) return Status::Ok();
  return Status::InvalidArgument(source + ": change " + std::to_string(bad + 1) + ": " + why);
}

Result<std::vector<MembershipEvent>> LoadMembership(const std::string& path,
                                                    const ClusterSpec& cluster) {
  auto opened = workload::CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  workload::CsvReader& in = **opened;
  SCHEDKIT_RETURN_IF_ERROR(in.ReadHeader());
  int time_col, node_col, event_col;
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("time_s", &time_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("node", &node_col));
  SCHEDKIT_RETURN_IF_ERROR(in.RequireColumn("event", &event_col));
  std::vector<MembershipEvent> events;
  std::vector<int> lines;
  while (in.Next()) {
    MembershipEvent e;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadDouble(time_col, &e.time_s, 0));
    SCHEDKIT_RETURN_IF_ERROR(in.ReadInt(node_col, &e.node, 0));
    std::string name;
    SCHEDKIT_RETURN_IF_ERROR(in.ReadString(event_col, &name));
    Result<MembershipChange> change = ParseMembershipChange(name);
    if (!change.ok()) return in.FieldError(event_col, "is not one of join, drain, fail, recover");
    e.change = *change;
    events.push_back(e);
    lines.push_back(in.line());
  }
  SCHEDKIT_RETURN_IF_ERROR(in.status());
  std::string why;
  const int bad = FirstIllegal(events, cluster.nodes.size(), &why);
  if (bad >= 0) {  // why = "FIELD: what".
    const size_t colon = why.find(':');
    return Status::InvalidArgument(path + ":" + std::to_string(lines[bad]) + ": field '" +
                                   why.substr(0, colon) + "':" + why.substr(colon + 1));
  }
  return events;
}

}  // namespace schedkit
