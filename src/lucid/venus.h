// Internal: what the Lucid simulator hard-codes about Venus, the cluster of its published
// run: the VCs that give the profiling pool a node each and the VC that lends it an extra
// node, and the experiment's time window. `--compat lucid` (ConfigFromOptions) uses the
// VCs; the clean model's `lucid` policy takes its donors from an option whose default is
// the same pair. LoadExperimentTrace uses the window when the user gives none.
#ifndef SCHEDKIT_LUCID_VENUS_H_
#define SCHEDKIT_LUCID_VENUS_H_

namespace schedkit::lucid {

inline constexpr const char* kVenusProfilerDonors[] = {"vc8Gr", "vcefl"};
inline constexpr const char* kVenusLenderVc = "vcYVn";

// Lucid's trace preparation: times count from the first job at or after the anchor, and
// the September window is measured from there (workload::LoadLucidTrace's anchor).
inline constexpr const char* kVenusWindowAnchor = "2020-04-01 00:00:00";
inline constexpr const char* kVenusWindowBegin = "2020-09-01 00:00:00";
inline constexpr const char* kVenusWindowEnd = "2020-09-26 23:59:00";

}  // namespace schedkit::lucid

#endif  // SCHEDKIT_LUCID_VENUS_H_
