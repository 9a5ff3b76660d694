// The cluster-throughput forecaster: two additive models (GPU jobs and GPUs submitted per
// bin) over time-of-week features and lags that end `horizon` bins before the forecast bin.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

#include "predict/additive_model.h"
#include "predict/civil_time.h"
#include "schedkit/predict.h"
#include "schedkit/trace.h"
#include "workload/csv.h"

namespace schedkit {

using nlohmann::json;
using predict::AdditiveModel;
using predict::FeatureInfo;
using predict::FeatureMatrix;
using predict::FeatureType;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int64_t kBinS = 600;

// The forecaster's features, in matrix column order.
const std::vector<std::string>& FeatureNames() {
  static const std::vector<std::string> names = {
      "hour", "weekday", "last", "mean_1h", "mean_1d", "same_time_1d", "same_time_7d"};
  return names;
}

struct Series {
  const std::vector<double>* values;
  std::vector<double> prefix;  // prefix[i] = sum of values[0, i)

  explicit Series(const std::vector<double>& v) : values(&v), prefix(v.size() + 1, 0) {
    for (size_t i = 0; i < v.size(); ++i) prefix[i + 1] = prefix[i] + v[i];
  }
  // Mean of the `n` bins ending at bin `last` (inclusive); NaN if they start before 0.
  double MeanEnding(int64_t last, int64_t n) const {
    if (last - n + 1 < 0) return kNaN;
    return (prefix[last + 1] - prefix[last + 1 - n]) / static_cast<double>(n);
  }
  double At(int64_t i) const { return i < 0 ? kNaN : (*values)[i]; }
};

// Features of bins [first, last) of `series` for a forecast `horizon` bins ahead: every
// lag reads bins at or before i - horizon.
FeatureMatrix Features(const ThroughputHistory& h, const Series& s, int64_t first, int64_t last,
                       int horizon) {
  const int64_t per_hour = 3600 / h.bin_s, per_day = 86400 / h.bin_s;
  FeatureMatrix x(last - first, static_cast<int>(FeatureNames().size()));
  for (int64_t i = first; i < last; ++i) {
    const int64_t r = i - first;
    const double t = static_cast<double>(h.start + i * h.bin_s);
    const int64_t seen = i - horizon;  // The last bin the forecast may read.
    const double row[] = {std::floor(predict::HourOfDay(t)),
                          static_cast<double>(predict::DayOfWeek(t)),
                          s.At(seen),
                          s.MeanEnding(seen, per_hour),
                          s.MeanEnding(seen, per_day),
                          s.At(i - per_day),
                          s.At(i - 7 * per_day)};
    for (int c = 0; c < x.cols; ++c) x.at(r, c) = static_cast<float>(row[c]);
  }
  return x;
}

std::vector<FeatureInfo> Schema() {
  std::vector<FeatureInfo> out;
  for (const std::string& n : FeatureNames()) {
    FeatureInfo f;
    f.name = n;
    out.push_back(std::move(f));
  }
  return out;
}

Status CheckHistory(const ThroughputHistory& h) {
  if (h.bin_s != kBinS) return Status::InvalidArgument("throughput history: bins must be 600 s");
  if (h.gpu_jobs.size() != h.gpu_num.size()) {
    return Status::InvalidArgument("throughput history: series of different lengths");
  }
  return Status::Ok();
}

}  // namespace

struct ThroughputForecaster::Impl {
  ThroughputForecasterOptions options;
  std::vector<AdditiveModel> models;  // gpu_job, gpu_num
  std::vector<Evaluation> evaluations;
  double train_cut = 0;
};

Result<ThroughputForecaster> ThroughputForecaster::Train(
    const ThroughputHistory& history, const ThroughputForecasterOptions& options) {
  SCHEDKIT_RETURN_IF_ERROR(CheckHistory(history));
  const int64_t per_day = 86400 / history.bin_s;
  if (options.horizon_bins < 1 || options.horizon_bins > per_day) {
    return Status::InvalidArgument("forecast horizon must be 1.." + std::to_string(per_day) +
                                   " bins");
  }
  const int64_t n = static_cast<int64_t>(history.gpu_jobs.size());
  std::vector<double> times;
  for (int64_t i = 0; i < n; ++i) times.push_back(static_cast<double>(history.start + i * kBinS));
  auto k = predict::TrainPrefix(times, options.training);
  if (!k.ok()) return Status::InvalidArgument("throughput history: " + k.status().message());
  const int64_t train = static_cast<int64_t>(*k);
  auto impl = std::make_shared<Impl>();
  impl->options = options;
  impl->train_cut = static_cast<double>(history.start + train * kBinS);
  const std::pair<const char*, const std::vector<double>*> targets[] = {
      {"submit_gpu_job", &history.gpu_jobs}, {"submit_gpu_num", &history.gpu_num}};
  for (const auto& [name, values] : targets) {
    const Series s(*values);
    const std::vector<double> train_y(values->begin(), values->begin() + train);
    const std::vector<double> test_y(values->begin() + train, values->end());
    auto model = AdditiveModel::Fit(name, predict::TargetScale::kLog1p, Schema(),
                                    Features(history, s, 0, train, options.horizon_bins), train_y,
                                    options.training);
    if (!model.ok()) return model.status();
    auto pred = model->Predict(Features(history, s, train, n, options.horizon_bins));
    if (!pred.ok()) return pred.status();
    Evaluation e = predict::Evaluate(name, train_y, test_y, *pred);
    double last = 0;
    int64_t counted = 0;
    for (int64_t i = train; i < n; ++i) {
      if (i - options.horizon_bins < 0) continue;
      last += std::fabs(s.At(i - options.horizon_bins) - s.At(i));
      ++counted;
    }
    e.mae_last = counted > 0 ? last / static_cast<double>(counted) : kNaN;
    impl->models.push_back(std::move(*model));
    impl->evaluations.push_back(std::move(e));
  }
  return ThroughputForecaster(std::move(impl));
}

Result<std::vector<ThroughputForecast>> ThroughputForecaster::Forecast(
    const ThroughputHistory& history, double from) const {
  SCHEDKIT_RETURN_IF_ERROR(CheckHistory(history));
  const int64_t n = static_cast<int64_t>(history.gpu_jobs.size());
  int64_t first = 0;
  while (first < n && static_cast<double>(history.start + first * kBinS) < from) ++first;
  std::vector<ThroughputForecast> rows;
  for (int64_t i = first; i < n; ++i) {
    ThroughputForecast row;
    row.time = history.start + i * kBinS;
    row.submit_gpu_job = history.gpu_jobs[i];
    row.submit_gpu_num = history.gpu_num[i];
    rows.push_back(row);
  }
  if (rows.empty()) return rows;
  const std::vector<double>* series[] = {&history.gpu_jobs, &history.gpu_num};
  for (int m = 0; m < 2; ++m) {
    const Series s(*series[m]);
    auto pred =
        impl_->models[m].Predict(Features(history, s, first, n, impl_->options.horizon_bins));
    if (!pred.ok()) return pred.status();
    for (size_t r = 0; r < rows.size(); ++r) {
      (m == 0 ? rows[r].pred_gpu_job : rows[r].pred_gpu_num) = (*pred)[r];
    }
  }
  return rows;
}

const std::vector<Evaluation>& ThroughputForecaster::evaluations() const {
  return impl_->evaluations;
}
double ThroughputForecaster::train_cut() const { return impl_->train_cut; }
int ThroughputForecaster::horizon_bins() const { return impl_->options.horizon_bins; }

Result<std::vector<Explanation>> ThroughputForecaster::Explain() const {
  std::vector<Explanation> out;
  for (const AdditiveModel& m : impl_->models) {
    auto e = m.Explain();
    if (!e.ok()) return e.status();
    out.push_back(std::move(*e));
  }
  return out;
}

Status ThroughputForecaster::Save(const std::string& path) const {
  json models = json::array();
  for (size_t m = 0; m < impl_->models.size(); ++m) {
    auto j = impl_->models[m].ToJson();
    if (!j.ok()) return j.status();
    (*j)["evaluation"] = predict::EvaluationToJson(impl_->evaluations[m]);
    models.push_back(std::move(*j));
  }
  const json file = {{"format", "schedkit-predictor"},
                     {"version", 1},
                     {"kind", "throughput"},
                     {"training", predict::TrainingToJson(impl_->options.training)},
                     {"horizon_bins", impl_->options.horizon_bins},
                     {"train_cut", impl_->train_cut},
                     {"models", std::move(models)}};
  return predict::WriteModelFile(file, path);
}

Result<ThroughputForecaster> ThroughputForecaster::Load(const std::string& path) {
  auto j = predict::ReadModelFile(path, "throughput");
  if (!j.ok()) return j.status();
  auto impl = std::make_shared<Impl>();
  try {
    impl->options.horizon_bins = j->at("horizon_bins").get<int>();
    impl->train_cut = j->at("train_cut").get<double>();
    const json& models = j->at("models");
    if (!models.is_array() || models.size() != 2) {
      return Status::InvalidArgument(path + ": a throughput model holds exactly 2 models");
    }
    for (const json& m : models) {
      auto model = AdditiveModel::FromJson(m, path);
      if (!model.ok()) return model.status();
      if (model->features().size() != FeatureNames().size()) {
        return Status::InvalidArgument(path + ": throughput model '" + model->target() + "' has " +
                                       std::to_string(model->features().size()) +
                                       " features, expected " +
                                       std::to_string(FeatureNames().size()));
      }
      auto e = predict::EvaluationFromJson(m.at("evaluation"), path);
      if (!e.ok()) return e.status();
      impl->models.push_back(std::move(*model));
      impl->evaluations.push_back(std::move(*e));
    }
  } catch (const json::exception& e) {
    return Status::InvalidArgument(path + ": not a throughput model: " + e.what());
  }
  if (impl->options.horizon_bins < 1) {
    return Status::InvalidArgument(path + ": horizon_bins must be >= 1");
  }
  return ThroughputForecaster(std::move(impl));
}

Result<ThroughputHistory> LoadThroughputHistory(const std::string& path) {
  auto r = workload::CsvReader::Open(path);
  if (!r.ok()) return r.status();
  workload::CsvReader& csv = **r;
  SCHEDKIT_RETURN_IF_ERROR(csv.ReadHeader());
  int time_col, jobs_col, num_col;
  SCHEDKIT_RETURN_IF_ERROR(csv.RequireColumn("time", &time_col));
  SCHEDKIT_RETURN_IF_ERROR(csv.RequireColumn("submit_gpu_job", &jobs_col));
  SCHEDKIT_RETURN_IF_ERROR(csv.RequireColumn("submit_gpu_num", &num_col));
  ThroughputHistory h;
  int64_t expected = 0;
  while (csv.Next()) {
    int64_t t;
    if (!ParseDateTimeUtc(csv.field(time_col), &t)) {
      return csv.FieldError(time_col, "is not a time YYYY-MM-DD HH:MM:SS");
    }
    if (h.gpu_jobs.empty()) {
      h.start = t;
    } else if (t != expected) {
      return csv.FieldError(time_col, "is not 10 minutes after the previous row (" +
                                          predict::FormatDateTime(expected) + ")");
    }
    expected = t + kBinS;
    double jobs, num;
    SCHEDKIT_RETURN_IF_ERROR(csv.ReadDouble(jobs_col, &jobs, 0));
    SCHEDKIT_RETURN_IF_ERROR(csv.ReadDouble(num_col, &num, 0));
    h.gpu_jobs.push_back(jobs);
    h.gpu_num.push_back(num);
  }
  SCHEDKIT_RETURN_IF_ERROR(csv.status());
  if (h.gpu_jobs.empty()) return Status::InvalidArgument(path + ": no rows");
  return h;
}

ThroughputHistory ThroughputFromJobs(const std::vector<JobSpec>& jobs, double epoch) {
  ThroughputHistory h;
  if (jobs.empty()) return h;
  auto bin_of = [&](const JobSpec& j) {
    return static_cast<int64_t>(std::floor((epoch + j.submit_s) / kBinS));
  };
  int64_t lo = bin_of(jobs.front()), hi = lo;
  for (const JobSpec& j : jobs) {
    lo = std::min(lo, bin_of(j));
    hi = std::max(hi, bin_of(j));
  }
  h.start = lo * kBinS;
  h.gpu_jobs.assign(hi - lo + 1, 0);
  h.gpu_num.assign(hi - lo + 1, 0);
  for (const JobSpec& j : jobs) {
    if (j.gpus <= 0) continue;
    h.gpu_jobs[bin_of(j) - lo] += 1;
    h.gpu_num[bin_of(j) - lo] += j.gpus;
  }
  return h;
}

Status WriteThroughputForecastCsv(const std::vector<ThroughputForecast>& rows,
                                  const std::string& path) {
  using workload::FormatDouble;
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot write");
  auto rounded = [](double v) { return FormatDouble(std::round(v * 1000) / 1000); };
  out << "time,submit_gpu_job,submit_gpu_num,pred_gpu_job,pred_gpu_num\n";
  for (const ThroughputForecast& r : rows) {
    out << predict::FormatDateTime(r.time) << ',' << FormatDouble(r.submit_gpu_job) << ','
        << FormatDouble(r.submit_gpu_num) << ',' << rounded(r.pred_gpu_job) << ','
        << rounded(r.pred_gpu_num) << '\n';
  }
  out.close();
  if (!out) return Status::IoError(path + ": write failed");
  return Status::Ok();
}

Result<std::string> PredictorKind(const std::string& path) {
  auto j = predict::ReadModelFile(path, "");
  if (!j.ok()) return j.status();
  return j->at("kind").get<std::string>();
}

}  // namespace schedkit
