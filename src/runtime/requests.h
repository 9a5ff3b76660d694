// Validation of the gRPC requests that carry user input (proto/schedkit/v1/scheduler.proto,
// docs/runtime.md "Guarantees"): pure functions of the message, so that the service and the
// fuzz target fuzz/grpc_request_fuzz.cc run the same code. A bad request is InvalidArgument
// with a message that names the field.
#ifndef SCHEDKIT_RUNTIME_REQUESTS_H_
#define SCHEDKIT_RUNTIME_REQUESTS_H_

#include <cstddef>
#include <string>
#include <vector>

#include "runtime/job_record.h"
#include "schedkit/status.h"
#include "schedkit/v1/scheduler.pb.h"

namespace schedkit::runtime {

// Request limits: a request past one is INVALID_ARGUMENT.
inline constexpr size_t kMaxCommandBytes = 64 * 1024;  // All of command's elements together.
inline constexpr int kMaxCommandArgs = 4096;
inline constexpr size_t kMaxLabelBytes = 256;  // user, vc, name, node.
inline constexpr size_t kMaxPathBytes = 4096;  // checkpoint_dir, working_dir (PATH_MAX).
inline constexpr size_t kMaxKeyBytes = 128;    // idempotency_key.
inline constexpr int kMaxTypeSpeeds = 64;      // type_speeds entries (GPU types).
inline constexpr double kMaxMemGb = 1 << 20;   // 1 PiB: far past any machine, far below overflow.
// ListJobs pages.
inline constexpr int kDefaultPageSize = 500;
inline constexpr int kMaxPageSize = 1000;
inline constexpr size_t kPageBytes = 1 << 20;  // A page stops growing past this many bytes.

// True iff `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF).
bool IsUtf8(const std::string& s);

// Ok, or InvalidArgument naming the first bad field of `r`. `total_gpus`: the cluster's.
Status ValidateSubmitRequest(const v1::SubmitRequest& r, int total_gpus);

// The record Engine::Submit stores for a valid `r` (id, submit time and state are the
// engine's to set), or ValidateSubmitRequest's error.
Result<JobRecord> JobFromSubmitRequest(const v1::SubmitRequest& r, int total_gpus);

// DrainNode / UndrainNode: a node name (whether the cluster has it is the engine's to say).
Status ValidateNodeName(const std::string& node);

// A resize's GPU count: from 0 to the cluster's `total_gpus`, else INVALID_ARGUMENT
// naming `gpus`. Whether the job can be resized is the engine's question.
Status ValidateResizeRequest(const v1::ResizeRequest& r, int total_gpus);

// A ListJobs request, checked: jobs in `states` (all if empty) with ids > `after`, at most
// `page_size` of them.
struct ListJobsQuery {
  std::vector<RunState> states;
  JobId after = 0;
  size_t page_size = kDefaultPageSize;
};
Result<ListJobsQuery> ParseListJobsRequest(const v1::ListJobsRequest& r);

}  // namespace schedkit::runtime

#endif  // SCHEDKIT_RUNTIME_REQUESTS_H_
