// What a runtime job is told of its allocation: its environment at start and the lines of
// its events file while it runs (docs/runtime.md, "Time limits and allocation changes").
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "runtime/backend.h"

namespace schedkit::runtime {
namespace {

// Seconds to the millisecond.
double Millis(double s) { return std::round(s * 1000) / 1000; }

// The shortest text that reads back as Millis(s) ("89.5", not "89.500000").
std::string SecondsText(double s) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), Millis(s));
  return std::string(buf, r.ptr);
}

}  // namespace

std::string GpuSlots(const Placement& placement, const ClusterSpec& cluster) {
  std::string ids;
  for (const NodeShare& s : placement.shares) {
    int first = 0;  // The node's first slot: the GPUs of the nodes before it.
    for (int n = 0; n < s.node; ++n) first += cluster.nodes[n].gpus;
    for (int g = 0; g < kMaxGpusPerNode; ++g) {
      if (s.gpu_mask >> g & 1) ids += (ids.empty() ? "" : ",") + std::to_string(first + g);
    }
  }
  return ids;
}

std::string PlacementGpuTypes(const Placement& placement, const ClusterSpec& cluster) {
  std::vector<std::string> types;
  for (const NodeShare& s : placement.shares) {
    const std::string& type = cluster.nodes[s.node].gpu_type;
    if (std::find(types.begin(), types.end(), type) == types.end()) types.push_back(type);
  }
  std::string out;
  for (const std::string& t : types) out += (out.empty() ? "" : ",") + t;
  return out;
}

std::string EventsPath(const std::string& state_dir, JobId id) {
  return JobDir(state_dir, id) + "/events.jsonl";
}

double TimeLeft(const JobRecord& job, double now_unix) {
  if (job.time_limit_s <= 0) return NAN;
  double used = job.executed_s;
  if (job.state == RunState::kRunning) used += std::max(0.0, now_unix - job.last_start_time);
  return std::max(0.0, job.time_limit_s - used);
}

std::vector<std::string> AllocationEnv(const std::string& state_dir, const JobRecord& job,
                                       int gpus, const std::string& gpu_type) {
  const bool limited = job.time_limit_s > 0;
  // At a start the current run has not begun: what is left is the limit minus past runs.
  const double left = std::max(0.0, job.time_limit_s - job.executed_s);
  std::vector<std::string> env = {
      "SCHEDKIT_GPUS=" + std::to_string(gpus),
      "SCHEDKIT_GPU_TYPE=" + gpu_type,
      "SCHEDKIT_GPU_MILLI=" + std::to_string(job.gpu_milli),
      "SCHEDKIT_TIME_LIMIT_S=" + (limited ? SecondsText(job.time_limit_s) : ""),
      "SCHEDKIT_TIME_LEFT_S=" + (limited ? SecondsText(left) : ""),
      "SCHEDKIT_EVENTS=" + EventsPath(state_dir, job.id)};
  // A share of one GPU: the MPS limit of the job's compute share, in whole percent rounded
  // up. Best effort: it limits SMs only under an MPS server, and nothing limits memory.
  if (job.gpu_milli < kMilliPerGpu) {
    env.push_back("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" + std::to_string((job.gpu_milli + 9) / 10));
  }
  return env;
}

Status AppendAllocationEvent(const std::string& state_dir, const JobRecord& job,
                             const std::string& event, const Placement& placement,
                             const ClusterSpec& cluster, double now_unix) {
  const double left = TimeLeft(job, now_unix);
  const nlohmann::json line = {
      {"event", event},
      {"gpus", placement.gpus()},
      {"gpu_ids", GpuSlots(placement, cluster)},
      {"time_left_s", std::isnan(left) ? nlohmann::json() : nlohmann::json(Millis(left))},
      {"time", Millis(now_unix)}};
  const std::string text = line.dump() + "\n";
  const std::string path = EventsPath(state_dir, job.id);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IoError(path + ": " + std::strerror(errno));
  const ssize_t n = write(fd, text.data(), text.size());
  const int err = errno;
  close(fd);
  if (n != static_cast<ssize_t>(text.size()))
    return Status::IoError(path + ": " + (n < 0 ? std::strerror(err) : "short write"));
  return Status::Ok();
}

}  // namespace schedkit::runtime
