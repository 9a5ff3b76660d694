// Interpretable predictors: a job-duration estimator and a cluster-throughput forecaster.
//
// Both are additive models: boosted depth-1 trees (XGBoost stumps), so a prediction is a
// bias plus one contribution per feature, and each feature's contribution is a function
// of that feature's value alone (its shape curve, printed by Explain). This is the model
// family of Lucid's Explainable Boosting Machines. Both are trained on a time prefix of
// their data and evaluated on the rest, so the reported errors are out of sample.
// docs/predict.md describes the features, the split and the files.
#ifndef SCHEDKIT_PREDICT_H_
#define SCHEDKIT_PREDICT_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "schedkit/job.h"
#include "schedkit/status.h"

namespace schedkit {

// How a predictor is fitted and which rows it may see.
struct PredictorTraining {
  int rounds = 300;  // Boosting rounds (stumps).
  double learning_rate = 0.1;
  double min_child_weight = 5;  // Fewest training rows on each side of a split.
  double lambda = 1;            // L2 penalty on leaf values.
  // The training rows are a time prefix: those before `train_until` (seconds since the
  // Unix epoch, UTC) when it is finite, else the first `train_fraction` of the rows in
  // time order. The rest are the evaluation rows and never reach the fit.
  double train_fraction = 0.8;
  double train_until = std::numeric_limits<double>::quiet_NaN();
  uint64_t seed = 0;
};

// Out-of-sample error of a predictor on its evaluation rows, next to constant baselines
// fitted on the training rows. Errors are in the target's unit; NaN without evaluation rows.
struct Evaluation {
  std::string target;  // "duration_s", "submit_gpu_job", "submit_gpu_num"
  int64_t train_rows = 0;
  int64_t test_rows = 0;
  double train_mean = 0;
  double train_median = 0;
  double mae_model = 0;
  double mae_mean = 0;    // Always predicting train_mean.
  double mae_median = 0;  // Always predicting train_median.
  // Throughput only: always predicting the last value the forecast may see; else NaN.
  double mae_last = std::numeric_limits<double>::quiet_NaN();
};

// One point of a feature's shape curve.
struct ShapePoint {
  std::string value;    // The feature value as text ("u042", "8", "(other)").
  double contribution;  // Added to the model's output (in Explanation::scale) at that value.
  int64_t train_rows;   // Training rows at this value (numeric probes: in (previous, value]).
};

struct FeatureShape {
  std::string name;                // e.g. "user", "gpus", "hour", "token:bert", "mean_1h"
  std::string kind;                // "categorical" or "numeric"
  double importance = 0;           // Mean |contribution| over the training rows.
  std::vector<ShapePoint> points;  // Categories (by name) or increasing numeric values.
};

struct Explanation {
  std::string target;
  // The scale contributions add up on: "log1p" means prediction = expm1(bias + sum), so a
  // contribution c multiplies (1 + prediction) by exp(c).
  std::string scale;
  double bias = 0;
  std::vector<FeatureShape> features;  // Most important first (ties by name).
};

struct DurationEstimatorOptions {
  PredictorTraining training;
  int max_name_tokens = 32;    // Job-name tokens kept as 0/1 features (most frequent first).
  int min_category_count = 3;  // Rarer users/VCs/names/tokens count as "(other)".
};

// Estimates a job's duration (seconds) from its user, VC, GPU count, job name (the whole
// name and its tokens) and the hour and weekday of its submission (UTC).
class DurationEstimator {
 public:
  // Trains on a prefix of `trace.jobs` (in submit order; see PredictorTraining) and
  // evaluates on the rest. Fails when the prefix is empty.
  static Result<DurationEstimator> Train(const Trace& trace,
                                         const DurationEstimatorOptions& options);
  static Result<DurationEstimator> Load(const std::string& path);
  Status Save(const std::string& path) const;

  // One estimate (seconds, >= 0) per job of `trace`, in trace order.
  Result<std::vector<double>> Estimate(const Trace& trace) const;
  const Evaluation& evaluation() const;
  Result<Explanation> Explain() const;
  // Submit time (Unix seconds) before which jobs may have been training rows.
  double train_cut() const;

  struct Impl;

 private:
  explicit DurationEstimator(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// Out-of-sample estimates for a whole log, as Lucid's weekly-updated estimates: the log
// is cut into periods [from + k period_s, from + (k + 1) period_s) (Unix seconds), and each
// period's jobs are estimated by a model trained on every job submitted before the period
// starts (options.training's split and fraction are ignored; the period start is the
// cut). Jobs before `from` get the first model's estimates, which are in-sample; their
// number goes to *in_sample. Fails when no job precedes `from`. REQUIRES: period_s > 0.
Result<std::vector<double>> RollingEstimates(const Trace& trace,
                                             const DurationEstimatorOptions& options, double from,
                                             double period_s, int64_t* in_sample);

// Writes `job_id,estimate_s` (one row per job, trace order); docs/outputs.md.
Status WriteEstimatesCsv(const Trace& trace, const std::vector<double>& estimates,
                         const std::string& path);

// GPU jobs submitted per fixed-width time bin (jobs with at least one GPU).
struct ThroughputHistory {
  int64_t start = 0;  // Unix seconds (UTC) of bin 0's start.
  int64_t bin_s = 600;
  std::vector<double> gpu_jobs;  // submit_gpu_job per bin
  std::vector<double> gpu_num;   // submit_gpu_num (GPUs asked for) per bin
};

// Reads Lucid's cluster_throughput.csv (or any CSV with time, submit_gpu_job and
// submit_gpu_num on consecutive 10-minute rows, such as Venus_throughput_pred.csv).
Result<ThroughputHistory> LoadThroughputHistory(const std::string& path);
// Counts a job log's GPU jobs into 10-minute bins from the bin holding its first job to
// the bin holding its last. `epoch` = Unix time of submit_s = 0.
ThroughputHistory ThroughputFromJobs(const std::vector<JobSpec>& jobs, double epoch);

// One forecast row, as in Lucid's Venus_throughput_pred.csv.
struct ThroughputForecast {
  int64_t time = 0;                               // Bin start, Unix seconds.
  double submit_gpu_job = 0, submit_gpu_num = 0;  // What happened.
  double pred_gpu_job = 0, pred_gpu_num = 0;      // What was forecast `horizon` bins ahead.
};

struct ThroughputForecasterOptions {
  PredictorTraining training;
  // A bin's forecast may use bins up to `horizon_bins` before it. Lucid's packing switch
  // reads the next 5 rows, so 6 keeps every row it reads a true forecast.
  int horizon_bins = 6;
};

// Forecasts submitted GPU jobs and GPUs per 10-minute bin from the hour and weekday and
// from lagged history (the last visible bin, the means over the last hour and day, the
// same time one day and one week earlier). Two additive models, one per target.
class ThroughputForecaster {
 public:
  static Result<ThroughputForecaster> Train(const ThroughputHistory& history,
                                            const ThroughputForecasterOptions& options);
  static Result<ThroughputForecaster> Load(const std::string& path);
  Status Save(const std::string& path) const;

  // Forecast rows for history's bins whose start is at or after `from` (Unix seconds).
  Result<std::vector<ThroughputForecast>> Forecast(const ThroughputHistory& history,
                                                   double from) const;
  const std::vector<Evaluation>& evaluations() const;  // gpu_job, then gpu_num
  Result<std::vector<Explanation>> Explain() const;
  double train_cut() const;  // First bin start not used for training.
  int horizon_bins() const;

  struct Impl;

 private:
  explicit ThroughputForecaster(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
};

// Writes time,submit_gpu_job,submit_gpu_num,pred_gpu_job,pred_gpu_num (time as
// "YYYY-MM-DD HH:MM:SS", UTC), the format of Lucid's Venus_throughput_pred.csv.
Status WriteThroughputForecastCsv(const std::vector<ThroughputForecast>& rows,
                                  const std::string& path);

// "predict.json" model files hold either kind; this says which ("duration" or
// "throughput") without building the model.
Result<std::string> PredictorKind(const std::string& path);

}  // namespace schedkit

#endif  // SCHEDKIT_PREDICT_H_
