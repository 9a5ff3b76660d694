// A min-heap of timed events ordered by (time, sequence number): deterministic ties.
#ifndef SCHEDKIT_ENGINE_EVENT_QUEUE_H_
#define SCHEDKIT_ENGINE_EVENT_QUEUE_H_

#include <cstdint>
#include <queue>
#include <vector>

#include "schedkit/job.h"

namespace schedkit {

struct TimedEvent {
  Time time;
  uint64_t seq;
  int32_t job;          // Engine job index.
  uint32_t generation;  // Event is stale unless it equals the job's current generation.
};

class EventQueue {
 public:
  void Push(Time time, int32_t job, uint32_t generation) {
    heap_.push(TimedEvent{time, next_seq_++, job, generation});
  }
  bool empty() const { return heap_.empty(); }
  const TimedEvent& top() const { return heap_.top(); }
  void Pop() { heap_.pop(); }

 private:
  struct Later {
    bool operator()(const TimedEvent& a, const TimedEvent& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::priority_queue<TimedEvent, std::vector<TimedEvent>, Later> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace schedkit

#endif  // SCHEDKIT_ENGINE_EVENT_QUEUE_H_
