// ModularPolicy when an engine ends a job that is still pending (the runtime's cancel):
// the job must leave the queue and never be started. The simulator never does this, so
// a hand-written view drives the policy here.
#include <gtest/gtest.h>

#include "hand_view.h"
#include "schedkit/registry.h"

namespace schedkit {
namespace {

// A one-GPU job submitted at second `id`, 100 s long.
void Add(HandView& view, JobId id) {
  view.Add(JobBuilder(id).Submit(static_cast<Time>(id)).Gpus(1).Duration(100).Build());
}

TEST(Modular, APendingJobThatEndsLeavesTheQueueAndNeverStarts) {
  for (const char* name : {"fifo", "tiresias", "srtf"}) {
    PolicyRequest request;
    request.policy = name;
    auto policy = MakePolicy(request);
    ASSERT_TRUE(policy.ok()) << policy.status().message();
    HandView view(ClusterSpec::Uniform(1, 1, 1, 0, 0));
    for (JobId id : {1, 2, 3}) Add(view, id);
    Decisions d;
    (*policy)->Decide(view, EventBatch{.arrived = {1, 2, 3}}, &d);
    ASSERT_EQ(d.start.size(), 1u) << name;
    ASSERT_EQ(d.start[0].job, 1) << name;
    view.Run(1, d.start[0].placement);

    view.End(2);  // Cancelled while pending.
    d.Clear();
    (*policy)->Decide(view, EventBatch{.finished = {2}}, &d);
    EXPECT_TRUE(d.start.empty()) << name;

    view.End(1);
    d.Clear();
    (*policy)->Decide(view, EventBatch{.finished = {1}}, &d);
    ASSERT_EQ(d.start.size(), 1u) << name;
    EXPECT_EQ(d.start[0].job, 3) << name << ": started the ended job";
  }
}

}  // namespace
}  // namespace schedkit
