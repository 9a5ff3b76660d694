// LAS re-examines a running job's place every quantum, but only while someone waits:
// with nobody waiting no key change can reorder anything (issue 21: three jobs of 1e12 s
// used to cost 1e10 wake-ups; such times are now refused as past the clock's 2^32 s, so the
// test runs 4e9 s jobs, which cost 4e7 wake-ups before the fix). The times it is woken at once someone waits are still
// those of a wake-up every quantum since the job started.
#include <gtest/gtest.h>

#include "sim_test_util.h"

namespace schedkit::testing {
namespace {

TEST(LasWakeups, Issue21VeryLongJobsWithNobodyWaitingCostNoWakeups) {
  // Four GPUs, three 1-GPU jobs of 4e9 s: all run at once and nobody ever waits, so the
  // only events are the three arrivals and the three completions.
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(4e9).Build(),
                        JobBuilder(2).Gpus(1).Submit(1).Duration(4e9).Build(),
                        JobBuilder(3).Gpus(1).Submit(2).Duration(4e9).Build()},
                       ClusterSpec::Uniform(1, 1, 4, 0, 0), Request("las"));
  for (JobId id : {1, 2, 3}) EXPECT_DOUBLE_EQ(r.Jct(id), 4e9) << "job " << id;
  EXPECT_EQ(r.summary.events, 6);
  EXPECT_EQ(r.summary.preemptions, 0);
}

TEST(LasWakeups, WakeupsSleptThroughKeepTheirTimes) {
  // Two GPUs, quantum 50. J1 (1,220 s) runs from 0; J2 (1,500 s) from 1,010, beside it;
  // nobody waits, so neither is woken. At 1,200 J3 (10,000 s) arrives with 0 attained
  // service: J1 has the most (1,200) and is preempted; now J1 waits. J2's wake-ups are
  // every 50 s since its start (1,060, 1,110, ...): at 2,210 its attained service
  // reaches J1's 1,200 and the tie goes to J1 (earlier submit), so J2 is preempted and
  // J1 finishes its last 20 s at 2,230 (JCT 2,230). J2 restarts then with 300 s left:
  // done at 2,530 (JCT 1,520). J3 is never preempted: JCT 10,000. Had J2's wake-ups been
  // counted from 1,200 instead (1,250, ...), J1 would resume at 2,250.
  auto r = RunScenario({JobBuilder(1).Gpus(1).Submit(0).Duration(1220).Build(),
                        JobBuilder(2).Gpus(1).Submit(1010).Duration(1500).Build(),
                        JobBuilder(3).Gpus(1).Submit(1200).Duration(10000).Build()},
                       ClusterSpec::Uniform(1, 1, 2, 0, 0), Request("las", {{"quantum_s", "50"}}));
  EXPECT_DOUBLE_EQ(r.Jct(1), 2230);
  EXPECT_DOUBLE_EQ(r.Jct(2), 1520);
  EXPECT_DOUBLE_EQ(r.Jct(3), 10000);
  EXPECT_EQ(r.summary.preemptions, 2);
}

}  // namespace
}  // namespace schedkit::testing
