// Fuzz target: the gRPC requests of `schedkit serve` that carry user input, as the
// service gets them (src/runtime/requests.h). The first byte picks the message (Submit,
// ListJobs, DrainNode, UndrainNode); the rest is its protobuf wire encoding. A message that
// parses is validated as the service validates it:
//  - refused: the error is InvalidArgument, one line of UTF-8 of at most kMaxMessageBytes
//    (it names the field and never echoes a huge or multi-line value);
//  - accepted Submit: the record the engine stores is written to an in-memory store and
//    read back, and must come back equal (no field the store cannot keep passes);
//  - accepted ListJobs: a page size in 1..kMaxPageSize, a non-negative cursor.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/requests.h"
#include "runtime/store.h"

namespace {

using namespace schedkit;
using namespace schedkit::runtime;

constexpr size_t kMaxMessageBytes = 512;

[[noreturn]] void Fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "grpc_request_fuzz: %s: %s\n", what, detail.c_str());
  std::abort();
}

void CheckRefusal(const Status& st) {
  if (st.code() != Status::Code::kInvalidArgument) Fail("not InvalidArgument", st.message());
  const std::string& m = st.message();
  if (m.empty() || m.size() > kMaxMessageBytes) Fail("message length", std::to_string(m.size()));
  if (!IsUtf8(m)) Fail("message not UTF-8", m);
  for (char c : m) {
    if (static_cast<unsigned char>(c) < 0x20) Fail("control character in message", m);
  }
}

// The submitted fields of `a` and `b` are the same.
bool SameSubmission(const JobRecord& a, const JobRecord& b) {
  return a.command == b.command && a.shell == b.shell && a.gpus == b.gpus && a.cpus == b.cpus &&
         a.mem_gb == b.mem_gb && a.duration_s == b.duration_s && a.user == b.user && a.vc == b.vc &&
         a.name == b.name && a.checkpoint_dir == b.checkpoint_dir &&
         a.working_dir == b.working_dir && a.priority == b.priority &&
         a.idempotency_key == b.idempotency_key && a.iteration_time_s == b.iteration_time_s &&
         a.stage_times_s == b.stage_times_s;
}

void Submit(const uint8_t* data, size_t size) {
  v1::SubmitRequest req;
  if (!req.ParseFromArray(data, static_cast<int>(size))) return;
  constexpr int kClusterGpus = 8;
  Result<JobRecord> job = JobFromSubmitRequest(req, kClusterGpus);
  if (!job.ok()) {
    CheckRefusal(job.status());
    return;
  }
  Result<std::unique_ptr<Store>> store = Store::Open(":memory:");
  if (!store.ok()) Fail("open an in-memory store", store.status().message());
  JobRecord stored = *job;
  if (Status st = (*store)->Insert(&stored); !st.ok()) Fail("store a valid job", st.message());
  Result<std::vector<JobRecord>> back = (*store)->LoadAll();
  if (!back.ok()) Fail("read the store back", back.status().message());
  if (back->size() != 1 || !SameSubmission((*back)[0], *job))
    Fail("the stored job differs from the submitted one", req.ShortDebugString());
}

void ListJobs(const uint8_t* data, size_t size) {
  v1::ListJobsRequest req;
  if (!req.ParseFromArray(data, static_cast<int>(size))) return;
  Result<ListJobsQuery> q = ParseListJobsRequest(req);
  if (!q.ok()) {
    CheckRefusal(q.status());
    return;
  }
  if (q->page_size < 1 || q->page_size > static_cast<size_t>(kMaxPageSize) || q->after < 0)
    Fail("ListJobs query out of range", req.ShortDebugString());
}

template <typename Request>
void Node(const uint8_t* data, size_t size) {
  Request req;
  if (!req.ParseFromArray(data, static_cast<int>(size))) return;
  Status st = ValidateNodeName(req.node());
  if (!st.ok()) CheckRefusal(st);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t* body = data + 1;
  const size_t body_size = size - 1;
  switch (data[0] % 4) {
    case 0:
      Submit(body, body_size);
      break;
    case 1:
      ListJobs(body, body_size);
      break;
    case 2:
      Node<v1::DrainNodeRequest>(body, body_size);
      break;
    case 3:
      Node<v1::UndrainNodeRequest>(body, body_size);
      break;
  }
  return 0;
}
