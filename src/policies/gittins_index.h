// The Gittins index of a job whose size S (service, e.g. GPU-seconds) is unknown but
// drawn from an empirical distribution, given the service a it has attained.
//
// For a job known to have S > x, the value of serving it for up to Δ more is
//   R(x, Δ) = P(S - x <= Δ | S > x) / E[min(S - x, Δ) | S > x],
// the chance it completes within Δ per unit of service it is expected to use doing so.
// The Gittins index is the best such ratio over the candidate Δs. Like Tiresias
// (static delta), the candidate set is one service quantum: Δ = quantum, and a job is
// assessed at the start of its current quantum, x = quantum * floor(a / quantum). So the
// index is a step function of a that can change only when a crosses a multiple of the
// quantum, which is when the policies re-examine a running job. A job that has outlived
// every sample (no sample > x) gets index 0, the lowest.
//
// The samples are sorted and prefix-summed once; an index then costs two binary
// searches, O(log n).
#ifndef SCHEDKIT_POLICIES_GITTINS_INDEX_H_
#define SCHEDKIT_POLICIES_GITTINS_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace schedkit {

class GittinsIndex {
 public:
  // REQUIRES: `samples` is non-empty, every sample is finite and > 0; quantum > 0 and finite.
  GittinsIndex(std::vector<double> samples, double quantum);

  double quantum() const { return quantum_; }
  double max_sample() const { return sorted_.back(); }

  // R(x, delta) as above; 0 when no sample exceeds x. REQUIRES: x >= 0, delta > 0.
  double Ratio(double x, double delta) const;

  // The quantum that attained service `a` is in: floor(a / quantum), forgiving the few
  // ulps by which a job woken at its computed crossing time may fall short of it.
  int64_t QuantumOf(double a) const;

  // The index at attained service `a`: Ratio(QuantumOf(a) * quantum, quantum).
  double Index(double a) const;

  // Service still to attain, from `a`, before the index can change, or +infinity when it
  // never will (the job has outlived every sample). That is the next quantum boundary,
  // except where no sample can end within the current quantum (index 0): then the index
  // stays 0 until the quantum whose window holds the next sample, and the boundaries in
  // between are skipped.
  double ServiceToNextChange(double a) const;

 private:
  // Number of samples <= x.
  size_t CountAtMost(double x) const;

  std::vector<double> sorted_;  // Ascending.
  std::vector<double> prefix_;  // prefix_[k] = sum of sorted_[0, k).
  double quantum_;
};

}  // namespace schedkit

#endif  // SCHEDKIT_POLICIES_GITTINS_INDEX_H_
