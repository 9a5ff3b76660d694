// The job-duration estimator: one additive model of log1p(duration) over the job's user,
// VC, GPUs, name, name tokens and submit hour/weekday.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <set>

#include "predict/additive_model.h"
#include "predict/civil_time.h"
#include "predict/job_name.h"
#include "schedkit/predict.h"
#include "workload/csv.h"

namespace schedkit {

using nlohmann::json;
using predict::AdditiveModel;
using predict::FeatureInfo;
using predict::FeatureMatrix;
using predict::FeatureType;

namespace {

constexpr float kMissing = std::numeric_limits<float>::quiet_NaN();
constexpr char kTokenPrefix[] = "token:";

double SubmitUnix(const Trace& trace, const JobSpec& job) {
  return static_cast<double>(trace.epoch_unix_s) + job.submit_s;
}

FeatureInfo Categorical(std::string name, const std::map<std::string, int64_t>& counts,
                        int min_count) {
  FeatureInfo f;
  f.name = std::move(name);
  f.type = FeatureType::kCategorical;
  for (const auto& [value, n] : counts) {  // std::map: lexicographic, hence stable codes.
    if (!value.empty() && n >= min_count) f.categories.push_back(value);
  }
  return f;
}

FeatureInfo Numeric(std::string name) {
  FeatureInfo f;
  f.name = std::move(name);
  return f;
}

// The schema, fitted on the training jobs: which users, VCs, names and tokens are
// categories (seen at least min_count times) and which tokens become features.
std::vector<FeatureInfo> FitSchema(const std::vector<JobSpec>& train,
                                   const DurationEstimatorOptions& o) {
  std::map<std::string, int64_t> users, vcs, names, tokens;
  for (const JobSpec& j : train) {
    ++users[j.user];
    ++vcs[j.vc];
    ++names[j.name];
    for (const std::string& t : predict::NameTokens(j.name)) ++tokens[t];
  }
  std::vector<FeatureInfo> schema = {Categorical("user", users, o.min_category_count),
                                     Categorical("vc", vcs, o.min_category_count),
                                     Numeric("gpus"),
                                     Categorical("name", names, o.min_category_count),
                                     Numeric("hour"),
                                     Numeric("weekday")};
  // A token in every job tells nothing; the rest by frequency, then alphabetically.
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (const auto& [t, n] : tokens) {
    if (n >= o.min_category_count && n < static_cast<int64_t>(train.size()))
      ranked.push_back({-n, t});
  }
  std::sort(ranked.begin(), ranked.end());
  for (size_t i = 0; i < ranked.size() && static_cast<int>(i) < o.max_name_tokens; ++i) {
    schema.push_back(Numeric(kTokenPrefix + ranked[i].second));
  }
  return schema;
}

float Code(const FeatureInfo& f, const std::string& value) {
  auto it = std::lower_bound(f.categories.begin(), f.categories.end(), value);
  if (it == f.categories.end() || *it != value) return kMissing;
  return static_cast<float>(it - f.categories.begin());
}

// Rows [first, last) of `trace.jobs`, encoded by `schema`.
Result<FeatureMatrix> Encode(const std::vector<FeatureInfo>& schema, const Trace& trace,
                             size_t first, size_t last) {
  FeatureMatrix x(static_cast<int64_t>(last - first), static_cast<int>(schema.size()));
  for (size_t r = 0; r < last - first; ++r) {
    const JobSpec& j = trace.jobs[first + r];
    const double t = SubmitUnix(trace, j);
    const std::vector<std::string> tokens = predict::NameTokens(j.name);
    for (size_t c = 0; c < schema.size(); ++c) {
      const std::string& n = schema[c].name;
      float v;
      if (n == "user") {
        v = Code(schema[c], j.user);
      } else if (n == "vc") {
        v = Code(schema[c], j.vc);
      } else if (n == "name") {
        v = Code(schema[c], j.name);
      } else if (n == "gpus") {
        v = static_cast<float>(j.gpus);
      } else if (n == "hour") {
        v = static_cast<float>(std::floor(predict::HourOfDay(t)));
      } else if (n == "weekday") {
        v = static_cast<float>(predict::DayOfWeek(t));
      } else if (n.rfind(kTokenPrefix, 0) == 0) {
        const std::string token = n.substr(sizeof(kTokenPrefix) - 1);
        v = std::find(tokens.begin(), tokens.end(), token) != tokens.end() ? 1.0f : 0.0f;
      } else {
        return Status::InvalidArgument("duration model: unknown feature '" + n + "'");
      }
      x.at(static_cast<int64_t>(r), static_cast<int>(c)) = v;
    }
  }
  return x;
}

std::vector<double> Durations(const Trace& trace, size_t first, size_t last) {
  std::vector<double> y;
  for (size_t i = first; i < last; ++i) y.push_back(trace.jobs[i].SoloRuntime());
  return y;
}

}  // namespace

struct DurationEstimator::Impl {
  DurationEstimatorOptions options;
  AdditiveModel model;
  Evaluation evaluation;
  double train_cut = 0;
};

Result<DurationEstimator> DurationEstimator::Train(const Trace& trace,
                                                   const DurationEstimatorOptions& options) {
  if (options.max_name_tokens < 0 || options.min_category_count < 1) {
    return Status::InvalidArgument("duration model: max name tokens >= 0, min category count >= 1");
  }
  std::vector<double> times;
  for (const JobSpec& j : trace.jobs) times.push_back(SubmitUnix(trace, j));
  if (!std::is_sorted(times.begin(), times.end())) {
    return Status::InvalidArgument(trace.source + ": jobs are not in submit order");
  }
  auto k = predict::TrainPrefix(times, options.training);
  if (!k.ok()) return Status::InvalidArgument(trace.source + ": " + k.status().message());
  const size_t train = *k, n = trace.jobs.size();
  std::vector<JobSpec> train_jobs(trace.jobs.begin(), trace.jobs.begin() + train);
  std::vector<FeatureInfo> schema = FitSchema(train_jobs, options);
  auto x = Encode(schema, trace, 0, train);
  if (!x.ok()) return x.status();
  const std::vector<double> train_y = Durations(trace, 0, train);
  auto model = AdditiveModel::Fit("duration_s", predict::TargetScale::kLog1p, std::move(schema), *x,
                                  train_y, options.training);
  if (!model.ok()) return model.status();
  auto test_x = Encode(model->features(), trace, train, n);
  if (!test_x.ok()) return test_x.status();
  auto pred = model->Predict(*test_x);
  if (!pred.ok()) return pred.status();
  auto impl = std::make_shared<Impl>(
      Impl{options, std::move(*model),
           predict::Evaluate("duration_s", train_y, Durations(trace, train, n), *pred),
           times[train - 1]});
  return DurationEstimator(std::move(impl));
}

Result<std::vector<double>> DurationEstimator::Estimate(const Trace& trace) const {
  auto x = Encode(impl_->model.features(), trace, 0, trace.jobs.size());
  if (!x.ok()) return x.status();
  if (x->rows == 0) return std::vector<double>{};
  return impl_->model.Predict(*x);
}

const Evaluation& DurationEstimator::evaluation() const { return impl_->evaluation; }
double DurationEstimator::train_cut() const { return impl_->train_cut; }
Result<Explanation> DurationEstimator::Explain() const { return impl_->model.Explain(); }

Status DurationEstimator::Save(const std::string& path) const {
  auto model = impl_->model.ToJson();
  if (!model.ok()) return model.status();
  (*model)["evaluation"] = predict::EvaluationToJson(impl_->evaluation);
  const json file = {{"format", "schedkit-predictor"},
                     {"version", 1},
                     {"kind", "duration"},
                     {"training", predict::TrainingToJson(impl_->options.training)},
                     {"max_name_tokens", impl_->options.max_name_tokens},
                     {"min_category_count", impl_->options.min_category_count},
                     {"train_cut", impl_->train_cut},
                     {"models", json::array({std::move(*model)})}};
  return predict::WriteModelFile(file, path);
}

Result<DurationEstimator> DurationEstimator::Load(const std::string& path) {
  auto j = predict::ReadModelFile(path, "duration");
  if (!j.ok()) return j.status();
  try {
    const json& models = j->at("models");
    if (!models.is_array() || models.size() != 1) {
      return Status::InvalidArgument(path + ": a duration model holds exactly 1 model");
    }
    auto model = AdditiveModel::FromJson(models[0], path);
    if (!model.ok()) return model.status();
    auto e = predict::EvaluationFromJson(models[0].at("evaluation"), path);
    if (!e.ok()) return e.status();
    DurationEstimatorOptions options;
    options.max_name_tokens = j->at("max_name_tokens").get<int>();
    options.min_category_count = j->at("min_category_count").get<int>();
    auto impl = std::make_shared<Impl>(
        Impl{options, std::move(*model), std::move(*e), j->at("train_cut").get<double>()});
    return DurationEstimator(std::move(impl));
  } catch (const json::exception& e) {
    return Status::InvalidArgument(path + ": not a duration model: " + e.what());
  }
}

Result<std::vector<double>> RollingEstimates(const Trace& trace,
                                             const DurationEstimatorOptions& options, double from,
                                             double period_s, int64_t* in_sample) {
  if (!(period_s > 0) || !std::isfinite(from)) {
    return Status::InvalidArgument("rolling estimates: a finite start and a period > 0");
  }
  std::vector<double> out(trace.jobs.size(), 0);
  *in_sample = 0;
  size_t next = 0;  // First job not estimated yet; jobs are in submit order.
  for (double cut = from; next < trace.jobs.size(); cut += period_s) {
    const double end = cut + period_s;
    size_t last = next;
    while (last < trace.jobs.size() && SubmitUnix(trace, trace.jobs[last]) < end) ++last;
    if (last == next && cut > from) continue;  // An empty period: no model needed.
    DurationEstimatorOptions o = options;
    o.training.train_until = cut;
    auto model = DurationEstimator::Train(trace, o);
    if (!model.ok()) return model.status();
    Trace period;
    period.source = trace.source;
    period.epoch_unix_s = trace.epoch_unix_s;
    period.jobs.assign(trace.jobs.begin() + next, trace.jobs.begin() + last);
    auto pred = model->Estimate(period);
    if (!pred.ok()) return pred.status();
    std::copy(pred->begin(), pred->end(), out.begin() + next);
    if (cut == from) {
      for (size_t i = next; i < last && SubmitUnix(trace, trace.jobs[i]) < from; ++i) ++*in_sample;
    }
    next = last;
  }
  return out;
}

Status WriteEstimatesCsv(const Trace& trace, const std::vector<double>& estimates,
                         const std::string& path) {
  if (estimates.size() != trace.jobs.size()) {
    return Status::InvalidArgument("one estimate per job expected");
  }
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot write");
  out << "job_id,estimate_s\n";
  for (size_t i = 0; i < estimates.size(); ++i) {
    // A tenth of a second is plenty for an ordering key and keeps the file readable.
    out << trace.jobs[i].id << ',' << workload::FormatDouble(std::round(estimates[i] * 10) / 10)
        << '\n';
  }
  out.close();
  if (!out) return Status::IoError(path + ": write failed");
  return Status::Ok();
}

}  // namespace schedkit
