#include "policies/gittins_index.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace schedkit {
namespace {

// Relative slack on attained service, as in Tiresias' queue levels: a job woken at the
// computed time it reaches a boundary may be a few ulps short of it.
constexpr double kSlack = 1e-9;

}  // namespace

GittinsIndex::GittinsIndex(std::vector<double> samples, double quantum)
    : sorted_(std::move(samples)), quantum_(quantum) {
  assert(!sorted_.empty() && quantum_ > 0);
  std::sort(sorted_.begin(), sorted_.end());
  prefix_.resize(sorted_.size() + 1, 0.0);
  for (size_t i = 0; i < sorted_.size(); ++i) prefix_[i + 1] = prefix_[i] + sorted_[i];
}

size_t GittinsIndex::CountAtMost(double x) const {
  return static_cast<size_t>(std::upper_bound(sorted_.begin(), sorted_.end(), x) - sorted_.begin());
}

double GittinsIndex::Ratio(double x, double delta) const {
  const size_t n = sorted_.size();
  const size_t lo = CountAtMost(x);  // Samples in [lo, n) exceed x: the job's possible sizes.
  if (lo == n) return 0;
  const size_t hi = CountAtMost(x + delta);  // [lo, hi) end within delta, [hi, n) outlast it.
  const double finishing = static_cast<double>(hi - lo);
  const double outlasting = static_cast<double>(n - hi);
  // P and E share the denominator n - lo (the survivors), which cancels. Service used:
  // S - x by each sample that finishes, delta by the others; each term is > 0.
  const double used = (prefix_[hi] - prefix_[lo]) - x * finishing + delta * outlasting;
  // Only cancellation in the prefix sums could make it <= 0: survivors all a hair above x.
  if (!(used > 0)) return std::numeric_limits<double>::max();
  return finishing / used;
}

int64_t GittinsIndex::QuantumOf(double a) const {
  return static_cast<int64_t>(std::floor(a * (1 + kSlack) / quantum_));
}

double GittinsIndex::Index(double a) const {
  return Ratio(static_cast<double>(QuantumOf(a)) * quantum_, quantum_);
}

double GittinsIndex::ServiceToNextChange(double a) const {
  const int64_t m = QuantumOf(a);
  const double x = static_cast<double>(m) * quantum_;
  const size_t n = sorted_.size();
  if (CountAtMost(x) == n) return std::numeric_limits<double>::infinity();
  const size_t next = CountAtMost(x + quantum_);  // First sample beyond this quantum's window.
  if (next > CountAtMost(x)) return static_cast<double>(m + 1) * quantum_ - a;
  // No sample ends within this quantum (index 0): the index stays 0 until the quantum whose
  // window (k q, (k + 1) q] holds the next sample s, so skip the wake-ups in between.
  const double s = sorted_[next];
  int64_t k = std::max<int64_t>(m + 1, static_cast<int64_t>(std::ceil(s / quantum_)) - 1);
  while (k > m + 1 && static_cast<double>(k) * quantum_ >= s) --k;  // Rounding of s / q.
  while (static_cast<double>(k + 1) * quantum_ < s) ++k;
  return static_cast<double>(k) * quantum_ - a;
}

}  // namespace schedkit
