#include "schedkit/simulator.h"
#include "workload/csv.h"

namespace schedkit {

Result<RestartOverheads> RestartOverheads::Load(const std::string& path, double default_s) {
  auto reader = workload::CsvReader::Open(path);
  if (!reader.ok()) return reader.status();
  workload::CsvReader& r = **reader;
  SCHEDKIT_RETURN_IF_ERROR(r.ReadHeader());
  int model_col, gpus_col, overhead_col;
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("model_name", &model_col));
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("num_gpu", &gpus_col));
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("restart_overhead_s", &overhead_col));
  RestartOverheads table(default_s);
  while (r.Next()) {
    std::string model;
    int gpus;
    double seconds;
    SCHEDKIT_RETURN_IF_ERROR(r.ReadString(model_col, &model));
    SCHEDKIT_RETURN_IF_ERROR(r.ReadInt(gpus_col, &gpus, 1));
    SCHEDKIT_RETURN_IF_ERROR(r.ReadDouble(overhead_col, &seconds, 0));
    table.Set(model, gpus, seconds);
  }
  SCHEDKIT_RETURN_IF_ERROR(r.status());
  return table;
}

}  // namespace schedkit
