// StumpBooster: gradient-boosted depth-1 trees (stumps) through XGBoost's C library.
//
// Every tree splits on one feature, so the model's output is a sum of per-feature shape
// functions plus a bias: an additive model, like Lucid's Explainable Boosting Machines.
// This header is the only door to XGBoost; its types stay in stump_booster.cc.
#ifndef SCHEDKIT_PREDICT_STUMP_BOOSTER_H_
#define SCHEDKIT_PREDICT_STUMP_BOOSTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "schedkit/status.h"

namespace schedkit::predict {

enum class FeatureType {
  kNumeric,      // Ordered values; a split is a threshold.
  kCategorical,  // Codes 0..k-1; a split is a set of codes (XGBoost's partition splits).
};

// Dense, row-major; NaN = missing (XGBoost sends it down each split's learned default side).
struct FeatureMatrix {
  int64_t rows = 0;
  int cols = 0;
  std::vector<float> values;  // rows x cols

  FeatureMatrix() = default;
  FeatureMatrix(int64_t r, int c);
  float& at(int64_t r, int c) { return values[r * cols + c]; }
  float at(int64_t r, int c) const { return values[r * cols + c]; }
};

struct BoosterParams {
  int rounds = 200;
  double learning_rate = 0.1;
  double min_child_weight = 5;  // With squared error: the fewest training rows in a leaf.
  double lambda = 1;            // L2 penalty on leaf values.
  uint64_t seed = 0;
};

class StumpBooster {
 public:
  // Fits `rounds` stumps to `labels` by squared error, starting from the labels' mean,
  // on one thread (deterministic). REQUIRES: labels.size() == x.rows > 0,
  // types.size() == x.cols > 0.
  static Result<StumpBooster> Train(const FeatureMatrix& x, const std::vector<FeatureType>& types,
                                    const std::vector<float>& labels, const BoosterParams& params);
  // A model saved by ToJson (XGBoost's JSON model format).
  static Result<StumpBooster> FromJson(const std::string& json,
                                       const std::vector<FeatureType>& types);
  Result<std::string> ToJson() const;

  // One value per row: bias + every feature's contribution.
  Result<std::vector<double>> Predict(const FeatureMatrix& x) const;
  // Per row, x.cols + 1 values: each feature's contribution (TreeSHAP; for stumps, the
  // leaf value minus the tree's cover-weighted mean, summed over the trees on that
  // feature), then the bias. They sum to Predict(x). A feature's contribution depends on
  // that feature's value alone.
  Result<std::vector<double>> Contributions(const FeatureMatrix& x) const;

  int num_features() const { return static_cast<int>(types_.size()); }

 private:
  struct Handle;
  StumpBooster(std::shared_ptr<Handle> h, std::vector<FeatureType> types)
      : booster_(std::move(h)), types_(std::move(types)) {}
  Result<std::vector<double>> Run(const FeatureMatrix& x, int option_mask) const;

  std::shared_ptr<Handle> booster_;
  std::vector<FeatureType> types_;
};

}  // namespace schedkit::predict

#endif  // SCHEDKIT_PREDICT_STUMP_BOOSTER_H_
