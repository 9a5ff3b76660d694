#include "runtime/requests.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "workload/trace_formats.h"

namespace schedkit::runtime {
namespace {

// A text field: UTF-8, at most `max_bytes`, without NUL bytes (SQLite and C strings end
// there).
Status CheckText(const std::string& field, const std::string& value, size_t max_bytes) {
  if (!IsUtf8(value)) return Status::InvalidArgument(field + ": not valid UTF-8");
  if (value.size() > max_bytes) {
    return Status::InvalidArgument(field + ": " + std::to_string(value.size()) +
                                   " bytes; at most " + std::to_string(max_bytes));
  }
  if (value.find('\0') != std::string::npos)
    return Status::InvalidArgument(field + ": contains a NUL byte");
  return Status::Ok();
}

// Quoted(value) for a message, cut at a character boundary: Quoted cuts a long value at
// kQuotedChars bytes, which may split a UTF-8 character and make the message invalid UTF-8.
std::string QuotedUtf8(const std::string& value) {
  if (value.size() <= kQuotedChars) return Quoted(value);
  size_t cut = kQuotedChars;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  std::string out = Quoted(std::string_view(value).substr(0, cut));
  out.insert(out.size() - 1, "...");
  return out + " (" + std::to_string(value.size()) + " bytes)";
}

bool FiniteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

// The request's type_speeds, checked by the trace's rule (workload::CheckTypeSpeeds) and
// sorted by type.
Result<std::vector<TypeSpeed>> TypeSpeedsOf(const v1::SubmitRequest& r) {
  if (r.type_speeds().size() > kMaxTypeSpeeds) {
    return Status::InvalidArgument("type_speeds: " + std::to_string(r.type_speeds().size()) +
                                   " entries; at most " + std::to_string(kMaxTypeSpeeds));
  }
  std::vector<TypeSpeed> speeds;
  for (int i = 0; i < r.type_speeds().size(); ++i) {
    const v1::TypeSpeed& t = r.type_speeds(i);
    SCHEDKIT_RETURN_IF_ERROR(CheckText("type_speeds[" + std::to_string(i) + "].gpu_type",
                                       t.gpu_type(), kMaxLabelBytes));
    speeds.push_back({t.gpu_type(), t.speed()});
  }
  Status st = workload::CheckTypeSpeeds(&speeds);
  if (!st.ok()) return Status::InvalidArgument("type_speeds: " + st.message());
  return speeds;
}

}  // namespace

bool IsUtf8(const std::string& s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    const unsigned c = *p++;
    if (c < 0x80) continue;
    int more;
    unsigned cp, min;
    if ((c & 0xE0) == 0xC0) {
      more = 1, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      more = 2, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      more = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (end - p < more) return false;
    for (int i = 0; i < more; ++i, ++p) {
      if ((*p & 0xC0) != 0x80) return false;
      cp = cp << 6 | (*p & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
  }
  return true;
}

Status ValidateSubmitRequest(const v1::SubmitRequest& r, int total_gpus) {
  using S = Status;
  if (r.command().empty())
    return S::InvalidArgument("command: empty; give the program and its arguments");
  if (r.command().size() > kMaxCommandArgs) {
    return S::InvalidArgument("command: " + std::to_string(r.command().size()) +
                              " elements; at most " + std::to_string(kMaxCommandArgs));
  }
  size_t command_bytes = 0;
  for (int i = 0; i < r.command().size(); ++i) {
    SCHEDKIT_RETURN_IF_ERROR(
        CheckText("command[" + std::to_string(i) + "]", r.command(i), SIZE_MAX));
    command_bytes += r.command(i).size();
  }
  if (command_bytes > kMaxCommandBytes) {
    return S::InvalidArgument("command: " + std::to_string(command_bytes) +
                              " bytes in all; at most " + std::to_string(kMaxCommandBytes));
  }
  if (r.command(0).empty()) return S::InvalidArgument("command[0]: empty program name");
  for (const auto& [field, value] :
       {std::pair{"user", &r.user()}, std::pair{"vc", &r.vc()}, std::pair{"name", &r.name()}}) {
    SCHEDKIT_RETURN_IF_ERROR(CheckText(field, *value, kMaxLabelBytes));
  }
  for (const auto& [field, value] : {std::pair{"checkpoint_dir", &r.checkpoint_dir()},
                                     std::pair{"working_dir", &r.working_dir()}}) {
    SCHEDKIT_RETURN_IF_ERROR(CheckText(field, *value, kMaxPathBytes));
    if (!value->empty() && (*value)[0] != '/')
      return S::InvalidArgument(std::string(field) + ": " + QuotedUtf8(*value) +
                                " is not an absolute path");
  }
  SCHEDKIT_RETURN_IF_ERROR(CheckText("idempotency_key", r.idempotency_key(), kMaxKeyBytes));
  if (r.shell() && r.command().size() != 1) {
    return S::InvalidArgument(
        "command: with shell=true give exactly one element, the shell text (got " +
        std::to_string(r.command().size()) + ")");
  }
  if (r.gpus() < 0) return S::InvalidArgument("gpus: " + std::to_string(r.gpus()) + " is negative");
  if (r.gpus() > total_gpus) {
    return S::InvalidArgument("gpus: " + std::to_string(r.gpus()) + " requested, the cluster has " +
                              std::to_string(total_gpus));
  }
  if (r.max_gpus() != 0 && (r.max_gpus() < r.gpus() || r.max_gpus() > total_gpus)) {
    return S::InvalidArgument("max_gpus: " + std::to_string(r.max_gpus()) +
                              " must be 0 (rigid) or from gpus (" + std::to_string(r.gpus()) +
                              ") to the cluster's " + std::to_string(total_gpus));
  }
  if (r.gpu_milli() < 0 || r.gpu_milli() > kMilliPerGpu) {
    return S::InvalidArgument("gpu_milli: " + std::to_string(r.gpu_milli()) +
                              " must be 0 (whole GPUs) or a share of one GPU from 1 to 1000");
  }
  if (r.gpu_milli() > 0 && r.gpu_milli() < kMilliPerGpu && (r.gpus() != 1 || r.max_gpus() != 0)) {
    return S::InvalidArgument("gpu_milli: a share of " + std::to_string(r.gpu_milli()) +
                              " milli-GPU is of one GPU: gpus must be 1 (got " +
                              std::to_string(r.gpus()) + ") and max_gpus 0 (got " +
                              std::to_string(r.max_gpus()) + ")");
  }
  if (r.cpus() < 0) return S::InvalidArgument("cpus: " + std::to_string(r.cpus()) + " is negative");
  if (!(r.mem_gb() >= 0 && r.mem_gb() <= kMaxMemGb)) {
    return S::InvalidArgument("mem_gb: must be a number from 0 to " +
                              std::to_string(static_cast<int64_t>(kMaxMemGb)) + " (1 PiB)");
  }
  if (!FiniteNonNegative(r.duration_s()))
    return S::InvalidArgument("duration_s: must be a finite number >= 0");
  if (!FiniteNonNegative(r.time_limit_s()))
    return S::InvalidArgument("time_limit_s: must be a finite number >= 0 (0 = no limit)");
  if (!FiniteNonNegative(r.iteration_time_s()))
    return S::InvalidArgument("iteration_time_s: must be a finite number >= 0");
  if (!r.stage_times_s().empty() && r.stage_times_s().size() != 3) {
    return S::InvalidArgument("stage_times_s: " + std::to_string(r.stage_times_s().size()) +
                              " values; give none or 3 (data + CPU, GPU, network)");
  }
  for (int i = 0; i < r.stage_times_s().size(); ++i) {
    if (!FiniteNonNegative(r.stage_times_s(i)))
      return S::InvalidArgument("stage_times_s[" + std::to_string(i) +
                                "]: must be a finite number >= 0");
  }
  Result<std::vector<TypeSpeed>> speeds = TypeSpeedsOf(r);
  return speeds.ok() ? S::Ok() : speeds.status();
}

Status ValidateResizeRequest(const v1::ResizeRequest& r, int total_gpus) {
  if (r.gpus() < 0) return Status::InvalidArgument("gpus: " + std::to_string(r.gpus()) + " is negative");
  if (r.gpus() > total_gpus) {
    return Status::InvalidArgument("gpus: " + std::to_string(r.gpus()) + " requested, the cluster has " +
                              std::to_string(total_gpus));
  }
  return Status::Ok();
}

Result<JobRecord> JobFromSubmitRequest(const v1::SubmitRequest& r, int total_gpus) {
  SCHEDKIT_RETURN_IF_ERROR(ValidateSubmitRequest(r, total_gpus));
  JobRecord job;
  job.command.assign(r.command().begin(), r.command().end());
  job.shell = r.shell();
  job.gpus = r.gpus();
  job.cpus = r.cpus();
  job.mem_gb = r.mem_gb();
  job.duration_s = r.duration_s();
  job.user = r.user();
  job.vc = r.vc();
  job.priority = r.priority();
  job.checkpoint_dir = r.checkpoint_dir();
  job.name = r.name();
  job.working_dir = r.working_dir();
  job.iteration_time_s = r.iteration_time_s();
  job.time_limit_s = r.time_limit_s();
  job.max_gpus = r.max_gpus();
  job.gpu_milli = r.gpu_milli() == 0 ? kMilliPerGpu : r.gpu_milli();
  job.type_speeds = *TypeSpeedsOf(r);  // Validated above.
  job.idempotency_key = r.idempotency_key();
  std::copy(r.stage_times_s().begin(), r.stage_times_s().end(), job.stage_times_s.begin());
  return job;
}

Status ValidateNodeName(const std::string& node) {
  if (node.empty())
    return Status::InvalidArgument("node: empty; give a node name (see `schedkit status`)");
  return CheckText("node", node, kMaxLabelBytes);
}

Result<ListJobsQuery> ParseListJobsRequest(const v1::ListJobsRequest& r) {
  ListJobsQuery q;
  for (int s : r.states()) {
    if (s < 1 || s > static_cast<int>(RunState::kRejected))
      return Status::InvalidArgument("states: " + std::to_string(s) + " is not a job state");
    q.states.push_back(static_cast<RunState>(s));
  }
  if (r.page_size() < 0)
    return Status::InvalidArgument("page_size: " + std::to_string(r.page_size()) + " is negative");
  if (r.page_size() > 0) q.page_size = std::min(r.page_size(), kMaxPageSize);
  const std::string& t = r.page_token();
  if (!t.empty()) {
    // A job id as next_page_token wrote it: at most 18 digits, so it fits an int64.
    if (t.size() > 18 ||
        !std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return Status::InvalidArgument("page_token: not a next_page_token of ListJobs");
    q.after = std::stoll(t);
  }
  return q;
}

}  // namespace schedkit::runtime
