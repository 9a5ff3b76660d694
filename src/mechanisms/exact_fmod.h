// ExactFmod: std::fmod, bit for bit, in a few instructions where the quotient is small.
//
// fmod is exact (its result is always representable), but glibc computes it by reducing
// the quotient a few bits at a time: ~170 instructions at simulated times of ~1e7 s with a
// 300-s period, where LAS asks for the phase of every wake-up it sets or moves.
#ifndef SCHEDKIT_MECHANISMS_EXACT_FMOD_H_
#define SCHEDKIT_MECHANISMS_EXACT_FMOD_H_

#include <cmath>

namespace schedkit {

// Returns std::fmod(x, y). For 0 < x and finite 0 < y with x / y < 2^52: q = trunc(x / y) is the
// quotient's integer part or one off (x / y is rounded once and is below 2^52), and
// fma(-q, y, x) rounds the exact x - q * y once. With the right q that exact value is
// fmod's, which is representable, so it comes back unrounded; a q one too high leaves it
// below 0, one too low at or above y, and q is corrected. Anything else goes to std::fmod.
inline double ExactFmod(double x, double y) {
  if (!(x > 0) || !(y > 0) || !(y < INFINITY) || !(x / y < 0x1p52)) return std::fmod(x, y);
  const double q = std::trunc(x / y);
  const double r = std::fma(-q, y, x);
  if (r < 0) return std::fma(-(q - 1), y, x);
  if (r >= y) return std::fma(-(q + 1), y, x);
  return r;
}

}  // namespace schedkit

#endif  // SCHEDKIT_MECHANISMS_EXACT_FMOD_H_
