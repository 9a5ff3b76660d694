// AdditiveModel: one target, its feature schema, a StumpBooster, and what Explain needs
// (probe points with training counts, importances) so that a loaded model explains
// itself without its training data. Shared by the duration estimator and the
// throughput forecaster.
#ifndef SCHEDKIT_PREDICT_ADDITIVE_MODEL_H_
#define SCHEDKIT_PREDICT_ADDITIVE_MODEL_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "predict/stump_booster.h"
#include "schedkit/predict.h"
#include "schedkit/status.h"

namespace schedkit::predict {

struct FeatureInfo {
  std::string name;
  FeatureType type = FeatureType::kNumeric;
  std::vector<std::string> categories;  // Categorical: code i names categories[i].
  // Filled by Fit: numeric probe values (increasing) and, for every point of the shape
  // curve (categories or probes, then "missing" when training had any), training rows.
  std::vector<double> probes;
  std::vector<int64_t> point_rows;
  int64_t missing_rows = 0;
  double importance = 0;
};

enum class TargetScale {
  kIdentity,
  kLog1p,  // Fit log1p(y); predict expm1(output), at least 0.
};

class AdditiveModel {
 public:
  // Fits on (x, y); y in the target's unit. Fills the features' probes and importances.
  static Result<AdditiveModel> Fit(std::string target, TargetScale scale,
                                   std::vector<FeatureInfo> features, const FeatureMatrix& x,
                                   const std::vector<double>& y, const PredictorTraining& training);
  // `where` names the file for messages.
  static Result<AdditiveModel> FromJson(const nlohmann::json& j, const std::string& where);
  Result<nlohmann::json> ToJson() const;

  // Predictions in the target's unit.
  Result<std::vector<double>> Predict(const FeatureMatrix& x) const;
  Result<Explanation> Explain() const;

  const std::string& target() const { return target_; }
  const std::vector<FeatureInfo>& features() const { return features_; }

 private:
  AdditiveModel(std::string target, TargetScale scale, std::vector<FeatureInfo> features,
                StumpBooster booster)
      : target_(std::move(target)),
        scale_(scale),
        features_(std::move(features)),
        booster_(std::move(booster)) {}

  std::string target_;
  TargetScale scale_;
  std::vector<FeatureInfo> features_;
  StumpBooster booster_;
};

// Out-of-sample errors of `test_pred` against `test_y`, with the constant baselines fitted
// on `train_y`. REQUIRES: train_y non-empty, test_pred.size() == test_y.size().
Evaluation Evaluate(std::string target, const std::vector<double>& train_y,
                    const std::vector<double>& test_y, const std::vector<double>& test_pred);
double Median(std::vector<double> v);

nlohmann::json EvaluationToJson(const Evaluation& e);
Result<Evaluation> EvaluationFromJson(const nlohmann::json& j, const std::string& where);
// The parts of PredictorTraining a model file records.
nlohmann::json TrainingToJson(const PredictorTraining& t);

// Reads a predictor file and checks its header; `kind` is "duration" or "throughput", or
// empty to accept both.
Result<nlohmann::json> ReadModelFile(const std::string& path, const std::string& kind);
Status WriteModelFile(const nlohmann::json& j, const std::string& path);

// Index of the training/evaluation boundary in rows sorted by time `times` (seconds):
// rows [0, k) train. See PredictorTraining.
Result<size_t> TrainPrefix(const std::vector<double>& times, const PredictorTraining& t);

}  // namespace schedkit::predict

#endif  // SCHEDKIT_PREDICT_ADDITIVE_MODEL_H_
