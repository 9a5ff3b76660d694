// The remaining-work order (SRTF, SRSF) as a SchedulingModule, shared by the srtf and srsf
// policies and by policies that order like SRTF and allocate their own way (optimus).
#ifndef SCHEDKIT_POLICIES_REMAINING_WORK_H_
#define SCHEDKIT_POLICIES_REMAINING_WORK_H_

#include <memory>

#include "schedkit/policy.h"

namespace schedkit {

// Key: remaining solo seconds (x GPUs when `gpu_weighted`), unknown (NaN) last. With
// `use_priority` the trace's priority comes first (higher first), as Blox orders:
// {-priority, remaining, 0}; without it {remaining, 0, 0}.
std::unique_ptr<SchedulingModule> MakeRemainingWorkOrder(bool gpu_weighted, bool use_priority);

}  // namespace schedkit

#endif  // SCHEDKIT_POLICIES_REMAINING_WORK_H_
