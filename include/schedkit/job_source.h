// Jobs one at a time, in arrival order: what a streamed simulation reads instead of a whole
// Trace held in memory beside the engine (docs/architecture.md, "Streamed runs").
#ifndef SCHEDKIT_JOB_SOURCE_H_
#define SCHEDKIT_JOB_SOURCE_H_

#include <cstddef>
#include <memory>

#include "schedkit/job.h"
#include "schedkit/status.h"

namespace schedkit {

struct GeneratorConfig;

class JobSource {
 public:
  virtual ~JobSource() = default;
  // Sets *job to the next job and returns true; false at the end, or on an error (then
  // status() says why). Jobs come in (submit time, id) order, as in a Trace.
  virtual bool Next(JobSpec* job) = 0;
  // Ok, or why Next stopped early.
  virtual Status status() const { return Status::Ok(); }
};

// The jobs of `trace`, which must outlive the source, in order.
class TraceJobSource final : public JobSource {
 public:
  explicit TraceJobSource(const Trace* trace) : trace_(trace) {}
  bool Next(JobSpec* job) override {
    if (next_ == trace_->jobs.size()) return false;
    *job = trace_->jobs[next_++];
    return true;
  }

 private:
  const Trace* trace_;
  size_t next_ = 0;
};

// The jobs GenerateTrace(config) returns, the same values in the same order, drawn one at
// a time: memory does not grow with num_jobs (GeneratorConfig::kMaxJobs does not apply).
// Fails as GenerateTrace does on a bad config or data file.
Result<std::unique_ptr<JobSource>> GenerateJobs(const GeneratorConfig& config);

}  // namespace schedkit

#endif  // SCHEDKIT_JOB_SOURCE_H_
