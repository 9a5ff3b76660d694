// Gavel's generator config for the heterogeneous-cluster tests.
#ifndef SCHEDKIT_TESTS_GAVEL_TEST_UTIL_H_
#define SCHEDKIT_TESTS_GAVEL_TEST_UTIL_H_

#include <cstdint>
#include <string>

#include "schedkit/trace.h"

namespace schedkit::testing {

// The shipped copy of Gavel's simulation_throughputs.json.
inline std::string GavelTablePath() {
  return std::string(SCHEDKIT_SOURCE_DIR) + "/data/gavel/simulation_throughputs.json";
}

inline GeneratorConfig GavelGeneratorConfig(uint64_t seed, bool multi_gpu, int64_t jobs,
                                            double jobs_per_hour) {
  GeneratorConfig c;
  c.durations = GeneratorConfig::Durations::kGavel;
  c.gavel_throughputs_path = GavelTablePath();
  c.gavel_multi_gpu = multi_gpu;
  c.num_jobs = jobs;
  c.jobs_per_hour = jobs_per_hour;
  c.seed = seed;
  return c;
}

}  // namespace schedkit::testing

#endif  // SCHEDKIT_TESTS_GAVEL_TEST_UTIL_H_
