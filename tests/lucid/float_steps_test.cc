// The jumped subtraction loop equals the plain one bit for bit.
#include "lucid/float_steps.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>

namespace schedkit::lucid {
namespace {

Steps Plain(double x, double r, int64_t max_steps, bool stop) {
  int64_t k = 0;
  while (k < max_steps && !(stop && x <= 0)) {
    x -= r;
    ++k;
  }
  return {x, k};
}

TEST(FloatStepsTest, MatchesThePlainLoopBitForBit) {
  std::mt19937_64 gen(7);
  std::uniform_int_distribution<int> speed(400, 1600);
  std::uniform_int_distribution<int64_t> duration(1, 300000);
  for (int i = 0; i < 400; ++i) {
    const double r = speed(gen) / 1000.0;  // Three decimals, like colocate_info's speeds.
    // Whole durations, and values left over from an earlier rate.
    double x = static_cast<double>(duration(gen));
    if (i % 2 == 1) x = Plain(x, 0.987, duration(gen) % 1000, false).value;
    const Steps fast = SubtractRepeatedly(x, r, INT64_MAX, true);
    const Steps plain = Plain(x, r, INT64_MAX, true);
    ASSERT_EQ(fast.taken, plain.taken) << "x=" << x << " r=" << r;
    ASSERT_EQ(fast.value, plain.value) << "x=" << x << " r=" << r;
    const int64_t part = plain.taken / 3;
    const Steps fast_part = SubtractRepeatedly(x, r, part, false);
    ASSERT_EQ(fast_part.value, Plain(x, r, part, false).value) << "x=" << x << " r=" << r;
    ASSERT_EQ(fast_part.taken, part);
  }
}

TEST(FloatStepsTest, ExactMultiplesEndWhereThePlainLoopDoes) {
  // 983 / 0.983 = 1000 in exact arithmetic; the rounded loop decides.
  for (double r : {0.983, 0.5, 1.25, 0.444, 1.034}) {
    for (double x : {983.0, 1000.0, 4.0, 1e5, 3.0 * r}) {
      EXPECT_EQ(SubtractRepeatedly(x, r, INT64_MAX, true).taken,
                Plain(x, r, INT64_MAX, true).taken)
          << x << " " << r;
    }
  }
}

}  // namespace
}  // namespace schedkit::lucid
