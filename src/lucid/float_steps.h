// Internal: Lucid's progress loop `remain -= rate` (one double subtraction per second),
// reproduced bit for bit without running it second by second.
//
// While x and x - r stay in one binade [2^e, 2^(e+1)), every rounded result is a
// multiple of u = ulp(x), so fl(x - r) = x - d with d = r rounded to a multiple of u: k
// steps are x - k*d, computed exactly in units of u. Steps near a binade's bottom, a
// rounding tie, or tiny values are taken one at a time.
#ifndef SCHEDKIT_LUCID_FLOAT_STEPS_H_
#define SCHEDKIT_LUCID_FLOAT_STEPS_H_

#include <cmath>
#include <cstdint>

namespace schedkit::lucid {

struct Steps {
  double value;
  int64_t taken;
};

// Subtracts `r` (> 0) from `x` up to `max_steps` times, one rounded subtraction each, as
// the plain loop would; with `stop_at_nonpositive`, stops once the value is <= 0 (the
// loop `while (x > 0) x -= r`).
inline Steps SubtractRepeatedly(double x, double r, int64_t max_steps, bool stop_at_nonpositive) {
  int64_t taken = 0;
  while (taken < max_steps && !(stop_at_nonpositive && x <= 0)) {
    int exp = 0;
    if (x >= 4 * r && x < 0x1p40 && std::frexp(x, &exp) >= 0.5) {
      const double low = std::ldexp(1.0, exp - 1);  // x in [low, 2 low).
      const double u = std::ldexp(1.0, exp - 53);   // ulp(x).
      const double q = r / u;                       // Exact: u is a power of two.
      const double d_units = std::nearbyint(q);
      const double frac = q - std::floor(q);
      // Steps whose exact results stay at least r above the binade's bottom.
      int64_t k = static_cast<int64_t>(std::floor((x - low) / r)) - 1;
      if (k > max_steps - taken) k = max_steps - taken;
      if (frac != 0.5 && k > 1) {
        const double units = x / u - static_cast<double>(k) * d_units;  // Exact integers.
        x = units * u;
        taken += k;
        continue;
      }
    }
    x -= r;
    ++taken;
  }
  return {x, taken};
}

}  // namespace schedkit::lucid

#endif  // SCHEDKIT_LUCID_FLOAT_STEPS_H_
