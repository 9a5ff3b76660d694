// JobSlots (src/mechanisms/job_slots.h): values by job id, value-initialised on first
// touch, pages allocated only where ids fall, any id accepted, copies independent.
#include "mechanisms/job_slots.h"

#include <gtest/gtest.h>

#include <limits>

namespace schedkit {
namespace {

struct Entry {
  int level = 7;  // A default member initialiser: value-initialisation must apply it.
  double time = 0;
};

TEST(JobSlots, FirstTouchIsValueInitialisedAndValuesStay) {
  JobSlots<Entry> slots;
  EXPECT_EQ(slots[5].level, 7);
  slots[5].level = 1;
  slots[6].time = 2.5;
  EXPECT_EQ(slots[5].level, 1);
  EXPECT_EQ(slots[6].time, 2.5);
  EXPECT_EQ(slots[6].level, 7);
  EXPECT_EQ(slots[0].level, 7);
}

TEST(JobSlots, PagesAreAllocatedOnlyWhereIdsFall) {
  JobSlots<int> slots;
  EXPECT_EQ(slots.pages(), 0u);
  slots[0] = 1;
  slots[JobSlots<int>::kPageSize - 1] = 2;
  EXPECT_EQ(slots.pages(), 1u);
  slots[10 * JobSlots<int>::kPageSize + 3] = 3;  // Pages 1-9 stay unallocated.
  EXPECT_EQ(slots.pages(), 2u);
  EXPECT_EQ(slots[0], 1);
  EXPECT_EQ(slots[JobSlots<int>::kPageSize - 1], 2);
  EXPECT_EQ(slots[10 * JobSlots<int>::kPageSize + 3], 3);
  EXPECT_EQ(slots[5 * JobSlots<int>::kPageSize], 0);  // Touched now: value-initialised.
  EXPECT_EQ(slots.pages(), 3u);
}

TEST(JobSlots, NegativeAndHugeIdsFallBackWithoutPages) {
  JobSlots<int> slots;
  const JobId huge = std::numeric_limits<JobId>::max();
  slots[-1] = 4;
  slots[huge] = 5;
  slots[JobSlots<int>::kDenseLimit] = 6;
  slots[std::numeric_limits<JobId>::min()] = 7;
  EXPECT_EQ(slots.pages(), 0u);
  EXPECT_EQ(slots[-1], 4);
  EXPECT_EQ(slots[huge], 5);
  EXPECT_EQ(slots[JobSlots<int>::kDenseLimit], 6);
  EXPECT_EQ(slots[std::numeric_limits<JobId>::min()], 7);
  EXPECT_EQ(slots[-2], 0);
  slots[JobSlots<int>::kDenseLimit - 1] = 8;  // The last dense id.
  EXPECT_EQ(slots.pages(), 1u);
  EXPECT_EQ(slots[JobSlots<int>::kDenseLimit - 1], 8);
}

TEST(JobSlots, CopiesAreIndependent) {
  JobSlots<int> a;
  a[3] = 1;
  a[-3] = 2;
  JobSlots<int> b = a;
  b[3] = 10;
  b[-3] = 20;
  b[4] = 30;
  EXPECT_EQ(a[3], 1);
  EXPECT_EQ(a[-3], 2);
  EXPECT_EQ(a[4], 0);
  EXPECT_EQ(b[3], 10);
  EXPECT_EQ(b[-3], 20);
}

}  // namespace
}  // namespace schedkit
