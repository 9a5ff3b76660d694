// The engine's jobs by index (arrival order), in chunks of kChunk.
//
// A run over a Trace adds every job at the start, pointing at the trace's specs, and keeps
// them all. A streamed run adds each job as it is read, the store owning its spec, and
// frees a chunk (its jobs' engine state and specs) once every job in it is retired
// (finished or rejected and never to be read again): memory follows the jobs in the system,
// not the jobs of the whole run.
//
// Copies (Simulator::Fork) copy the engine state and share the specs, which never change.
#ifndef SCHEDKIT_ENGINE_JOB_STORE_H_
#define SCHEDKIT_ENGINE_JOB_STORE_H_

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

#include "schedkit/job.h"

namespace schedkit {

// `Run` has a `const JobSpec* spec` member.
template <class Run>
class JobStore {
 public:
  static constexpr int kChunkBits = 10;
  static constexpr int32_t kChunk = int32_t{1} << kChunkBits;

  size_t size() const { return size_; }

  // REQUIRES: i < size() and not retired (aborts: an engine bug, or a policy that read a
  // job long gone in a streamed run).
  [[gnu::always_inline]] Run& operator[](int32_t i) { return Live(i); }
  [[gnu::always_inline]] const Run& operator[](int32_t i) const {
    return const_cast<JobStore*>(this)->Live(i);
  }
  bool retired(int32_t i) const { return chunks_[i >> kChunkBits].runs.empty(); }

  // A job whose spec the caller keeps alive (a Trace's); returns its index.
  int32_t Add(const JobSpec* spec) {
    Run& run = NewRun();
    run.spec = spec;
    return static_cast<int32_t>(size_++);
  }
  // The spec of the next job, to be filled in place (a streamed run reads each job into
  // it: no JobSpec moved per job), then added by AddNextSpec or dropped by DropNextSpec.
  JobSpec* NextSpec() {
    Chunk& chunk = TailChunk();
    if (!chunk.specs) {
      chunk.specs = std::make_shared<std::vector<JobSpec>>();
      chunk.specs->reserve(kChunk);  // Never reallocates: runs point into it.
    }
    if (chunk.specs->size() == chunk.runs.size()) chunk.specs->emplace_back();
    return &chunk.specs->back();
  }
  int32_t AddNextSpec() { return Add(&chunks_.back().specs->back()); }
  void DropNextSpec() {
    Chunk& chunk = chunks_.back();
    if (chunk.specs && chunk.specs->size() > chunk.runs.size()) chunk.specs->pop_back();
  }

  // Job `i` will not be read again. Its chunk is freed once all kChunk of its jobs are.
  void Retire(int32_t i) {
    Chunk& chunk = chunks_[i >> kChunkBits];
    if (++chunk.retired == kChunk) {
      std::vector<Run>().swap(chunk.runs);
      chunk.specs.reset();
    }
  }

  // Calls f(run) for every job not in a freed chunk, in index order.
  template <class F>
  void ForEachLive(F f) const {
    for (const Chunk& chunk : chunks_) {
      for (const Run& run : chunk.runs) f(run);
    }
  }

 private:
  struct Chunk {
    std::vector<Run> runs;  // Reserved to kChunk: references stay valid while it fills.
    std::shared_ptr<std::vector<JobSpec>> specs;  // Owned specs (streamed runs), or null.
    int32_t retired = 0;
  };

  Chunk& TailChunk() {
    if ((size_ & (kChunk - 1)) == 0 && size_ >> kChunkBits == chunks_.size()) {
      chunks_.emplace_back();
      chunks_.back().runs.reserve(kChunk);
    }
    return chunks_.back();
  }
  Run& NewRun() { return TailChunk().runs.emplace_back(); }

  // Inlined: Status() and Spec() reach every job through here, ten times a decision.
  [[gnu::always_inline]] Run& Live(int32_t i) {
    Chunk& chunk = chunks_[i >> kChunkBits];
    if (chunk.runs.empty()) [[unlikely]] DieRetired(i);
    return chunk.runs[i & (kChunk - 1)];
  }
  [[noreturn, gnu::noinline, gnu::cold]] static void DieRetired(int32_t i) {
    std::fprintf(stderr,
                 "schedkit: job index %d was retired: a streamed run frees finished jobs "
                 "(docs/architecture.md, \"Streamed runs\")\n",
                 static_cast<int>(i));
    std::abort();
  }

  std::vector<Chunk> chunks_;
  size_t size_ = 0;
};

}  // namespace schedkit

#endif  // SCHEDKIT_ENGINE_JOB_STORE_H_
