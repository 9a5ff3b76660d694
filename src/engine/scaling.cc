#include "schedkit/scaling.h"

#include "schedkit/throughput.h"
#include "workload/csv.h"

namespace schedkit {

Result<ScalingModel> ScalingModel::Load(const std::string& path) {
  auto reader = workload::CsvReader::Open(path);
  if (!reader.ok()) return reader.status();
  workload::CsvReader& r = **reader;
  SCHEDKIT_RETURN_IF_ERROR(r.ReadHeader());
  int model_col, alpha_col, beta_col;
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("model", &model_col));
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("alpha_ms", &alpha_col));
  SCHEDKIT_RETURN_IF_ERROR(r.RequireColumn("beta_ms", &beta_col));
  ScalingModel table(StepTimeCurve{}, path);
  bool has_default = false;
  std::map<std::string, int> seen;  // Model -> line, to refuse a repeated model.
  while (r.Next()) {
    std::string model;
    double alpha_ms, beta_ms;
    SCHEDKIT_RETURN_IF_ERROR(r.ReadString(model_col, &model));
    SCHEDKIT_RETURN_IF_ERROR(r.ReadDouble(alpha_col, &alpha_ms, 0));
    SCHEDKIT_RETURN_IF_ERROR(r.ReadDouble(beta_col, &beta_ms, 0));
    if (!(alpha_ms > 0)) return r.FieldError(alpha_col, "must be > 0");
    if (!seen.emplace(model, r.line()).second) {
      return r.FieldError(model_col, "is repeated (first on line " + std::to_string(seen[model]) + ")");
    }
    const StepTimeCurve curve{alpha_ms / 1000, beta_ms / 1000};
    if (model == "*") {
      table.default_ = curve;
      has_default = true;
    } else {
      table.Set(model, curve);
    }
  }
  SCHEDKIT_RETURN_IF_ERROR(r.status());
  if (!has_default) {
    return Status::InvalidArgument(path + ": no row for model '*' (the default curve)");
  }
  return table;
}

const StepTimeCurve& ScalingModel::CurveFor(const std::string& model) const {
  auto it = curves_.find(model);
  return it == curves_.end() ? default_ : it->second;
}

double ScalingModel::Speedup(const JobSpec& job, int gpus) const {
  if (gpus == job.gpus) return 1.0;
  const StepTimeCurve& c = CurveFor(job.profile.model);
  return c.Throughput(gpus) / c.Throughput(job.gpus);
}

double StartRate(const JobSpec& job, double rate, const Placement& placement,
                 const ClusterSpec& cluster, const ScalingModel* scaling) {
  double r = rate * PlacementSpeed(job, placement, cluster);
  const int gpus = placement.gpus();
  if (gpus != job.gpus) r *= scaling->Speedup(job, gpus);
  return r;
}

}  // namespace schedkit
