// Random draws that are the same on every standard library. std::mt19937_64's output
// sequence is fixed by the C++ standard, but std:: distributions differ between
// implementations, so the transforms to uniform, exponential and index draws are written
// here. (Exponential uses std::log, which IEEE libms such as glibc compute to within an ulp:
// sequences are byte-identical across runs and machines with the same libm.) Shared by the
// workload generator and the DAG simulator.
#ifndef SCHEDKIT_MECHANISMS_PORTABLE_RNG_H_
#define SCHEDKIT_MECHANISMS_PORTABLE_RNG_H_

#include <cmath>
#include <cstdint>
#include <random>

namespace schedkit {

class PortableRng {
 public:
  PortableRng() = default;
  explicit PortableRng(uint64_t seed) : engine_(seed) {}

  void Seed(uint64_t seed) { engine_.seed(seed); }

  // Uniform on [0, 1) with 53 random bits.
  double Uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double Uniform(double lo, double hi) { return lo + (hi - lo) * Uniform(); }
  // Exponential with the given mean (inverse CDF; 1 - U is in (0, 1]).
  double Exponential(double mean) { return -mean * std::log(1.0 - Uniform()); }
  // Uniform on {0, ..., n - 1} without modulo bias. REQUIRES: n > 0.
  uint64_t Index(uint64_t n) {
    const uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // A multiple of n (or the maximum).
    uint64_t x;
    do {
      x = engine_();
    } while (x >= limit);
    return x % n;
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_PORTABLE_RNG_H_
