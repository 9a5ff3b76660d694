// Job-duration distributions: an empirical sample of job sizes, e.g. Tiresias'
// yarn-gput*.csv (GPU-seconds), from which the Gittins policies compute their index.
//
// Format: a CSV with a header naming a `duration` column (other columns are ignored);
// one sample per record, a finite number > 0, in whatever unit the caller compares it
// with (the Gittins policies use GPU-seconds).
#ifndef SCHEDKIT_WORKLOAD_DURATION_DISTRIBUTION_H_
#define SCHEDKIT_WORKLOAD_DURATION_DISTRIBUTION_H_

#include <string>
#include <vector>

#include "schedkit/status.h"
#include "workload/csv.h"

namespace schedkit::workload {

// Reads every sample of `in` (header not yet read), in file order. Errors name the
// file, line and field ("d.csv:7: field 'duration': 'x' is not a number"); a file
// with no sample is an error too.
Result<std::vector<double>> ReadDurationSamples(CsvReader* in);

// Opens `path` and reads it as above. NotFound naming the path if it does not exist.
Result<std::vector<double>> LoadDurationSamples(const std::string& path);

}  // namespace schedkit::workload

#endif  // SCHEDKIT_WORKLOAD_DURATION_DISTRIBUTION_H_
