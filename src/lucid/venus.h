// Internal: what the Lucid simulator hard-codes about Venus, the cluster of its published
// run: the VCs that give the profiling pool a node each and the VC that lends it an extra
// node. `--compat lucid` (ConfigFromOptions) uses them; the clean model's `lucid` policy
// takes its donors from an option whose default is the same pair.
#ifndef SCHEDKIT_LUCID_VENUS_H_
#define SCHEDKIT_LUCID_VENUS_H_

namespace schedkit::lucid {

inline constexpr const char* kVenusProfilerDonors[] = {"vc8Gr", "vcefl"};
inline constexpr const char* kVenusLenderVc = "vcYVn";

}  // namespace schedkit::lucid

#endif  // SCHEDKIT_LUCID_VENUS_H_
