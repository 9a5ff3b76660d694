// A min-heap of timed events ordered by (time, sequence number): deterministic ties.
#ifndef SCHEDKIT_ENGINE_EVENT_QUEUE_H_
#define SCHEDKIT_ENGINE_EVENT_QUEUE_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "schedkit/job.h"

namespace schedkit {

struct TimedEvent {
  Time time;
  uint64_t seq;
  int32_t job;          // Engine job index.
  uint32_t generation;  // Event is stale unless it equals the job's current generation.
};

// Events pop in (time, seq) order, a strict total order: which events are held decides
// the order they pop in, not how the heap lays them out. So dropping events that would
// be skipped when popped (DropIf) changes nothing but memory and time.
class EventQueue {
 public:
  void Push(Time time, int32_t job, uint32_t generation) {
    heap_.push_back(TimedEvent{time, next_seq_++, job, generation});
    std::push_heap(heap_.begin(), heap_.end(), Later());
  }
  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  const TimedEvent& top() const { return heap_.front(); }
  void Pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later());
    heap_.pop_back();
  }
  // Removes every event for which `drop(event)` holds. O(size).
  template <typename Pred>
  void DropIf(Pred drop) {
    heap_.erase(std::remove_if(heap_.begin(), heap_.end(), drop), heap_.end());
    std::make_heap(heap_.begin(), heap_.end(), Later());
  }

 private:
  struct Later {
    bool operator()(const TimedEvent& a, const TimedEvent& b) const {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };
  std::vector<TimedEvent> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace schedkit

#endif  // SCHEDKIT_ENGINE_EVENT_QUEUE_H_
