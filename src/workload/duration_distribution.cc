#include "workload/duration_distribution.h"

namespace schedkit::workload {

Result<std::vector<double>> ReadDurationSamples(CsvReader* in) {
  SCHEDKIT_RETURN_IF_ERROR(in->ReadHeader());
  int col;
  SCHEDKIT_RETURN_IF_ERROR(in->RequireColumn("duration", &col));
  std::vector<double> samples;
  while (in->Next()) {
    double d;
    SCHEDKIT_RETURN_IF_ERROR(in->ReadDouble(col, &d));
    if (!(d > 0)) return in->FieldError(col, "must be > 0");
    samples.push_back(d);
  }
  SCHEDKIT_RETURN_IF_ERROR(in->status());
  if (samples.empty()) {
    return Status::InvalidArgument(in->file() + ": no 'duration' samples after the header");
  }
  return samples;
}

Result<std::vector<double>> LoadDurationSamples(const std::string& path) {
  auto opened = CsvReader::Open(path);
  if (!opened.ok()) return opened.status();
  return ReadDurationSamples(opened->get());
}

}  // namespace schedkit::workload
