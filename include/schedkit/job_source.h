// Jobs one at a time, in arrival order: what a streamed simulation reads instead of a whole
// Trace held in memory beside the engine (docs/architecture.md, "Streamed runs").
#ifndef SCHEDKIT_JOB_SOURCE_H_
#define SCHEDKIT_JOB_SOURCE_H_

#include <cstddef>
#include <memory>
#include <string>

#include "schedkit/job.h"
#include "schedkit/status.h"
#include "schedkit/trace.h"

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
  // Where the job Next last returned came from, "FILE:LINE", for the engine's messages about
  // that job (a duplicate id, a bad field); empty when jobs have no place (a generator).
  virtual std::string Where() const { return ""; }
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

// The jobs of the trace file at `path`, each row read when the engine reaches it, so memory
// does not grow with the file (`schedkit simulate --stream`). Formats of one job per row
// only: native, muri, gavel and gavel-legacy (options.format, or detected as LoadTrace
// does); the others fail naming the format, since their jobs are built from the whole file.
// The rows must be in (submit time, id) order, as `schedkit generate` and WriteNativeTrace
// write them: Next stops at the first row that is not, and status() names its file, line
// and field. The jobs are LoadTrace(path, options)'s, in the same order; a duplicate id is
// caught by the engine, which names the line through Where().
Result<std::unique_ptr<JobSource>> StreamTrace(const std::string& path,
                                               const TraceOptions& options = {});

// The jobs GenerateTrace(config) returns, the same values in the same order, drawn one at
// a time: memory does not grow with num_jobs (GeneratorConfig::kMaxJobs does not apply).
// Fails as GenerateTrace does on a bad config or data file.
Result<std::unique_ptr<JobSource>> GenerateJobs(const GeneratorConfig& config);

}  // namespace schedkit

#endif  // SCHEDKIT_JOB_SOURCE_H_
