#include "predict/additive_model.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

#include "workload/csv.h"

namespace schedkit::predict {

namespace {

using nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A numeric feature with at most this many distinct training values is probed at each;
// else at kQuantileProbes + 1 quantiles.
constexpr size_t kMaxDistinctProbes = 64;
constexpr int kQuantileProbes = 32;

double ToScale(TargetScale s, double y) { return s == TargetScale::kLog1p ? std::log1p(y) : y; }
double FromScale(TargetScale s, double v) {
  return s == TargetScale::kLog1p ? std::max(0.0, std::expm1(v)) : v;
}

void FillProbes(const FeatureMatrix& x, int col, FeatureInfo* f) {
  std::vector<double> values;
  f->missing_rows = 0;
  for (int64_t r = 0; r < x.rows; ++r) {
    const float v = x.at(r, col);
    if (std::isnan(v)) {
      ++f->missing_rows;
    } else {
      values.push_back(v);
    }
  }
  f->probes.clear();
  f->point_rows.clear();
  if (f->type == FeatureType::kCategorical) {
    f->point_rows.assign(f->categories.size(), 0);
    for (double v : values) {
      const auto code = static_cast<size_t>(v);
      if (code < f->point_rows.size()) ++f->point_rows[code];
    }
    return;
  }
  std::sort(values.begin(), values.end());
  std::vector<double> distinct = values;
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() <= kMaxDistinctProbes) {
    f->probes = distinct;
  } else {
    for (int i = 0; i <= kQuantileProbes; ++i) {
      const size_t idx = static_cast<size_t>(
          std::llround(static_cast<double>(i) * (values.size() - 1) / kQuantileProbes));
      if (f->probes.empty() || values[idx] > f->probes.back()) f->probes.push_back(values[idx]);
    }
  }
  size_t at = 0;
  for (double p : f->probes) {
    int64_t n = 0;
    while (at < values.size() && values[at] <= p) ++at, ++n;
    f->point_rows.push_back(n);
  }
}

// Probe values were float features: print the shortest text that reads back as that
// float ("0.16666667", not the double expansion of the float).
std::string FloatText(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
  return std::string(buf, r.ptr);
}

const char* ScaleName(TargetScale s) { return s == TargetScale::kLog1p ? "log1p" : "identity"; }

}  // namespace

Result<AdditiveModel> AdditiveModel::Fit(std::string target, TargetScale scale,
                                         std::vector<FeatureInfo> features, const FeatureMatrix& x,
                                         const std::vector<double>& y,
                                         const PredictorTraining& training) {
  if (static_cast<int>(features.size()) != x.cols) {
    return Status::Internal("feature schema and matrix disagree");
  }
  std::vector<FeatureType> types;
  for (const FeatureInfo& f : features) types.push_back(f.type);
  std::vector<float> labels;
  for (double v : y) labels.push_back(static_cast<float>(ToScale(scale, v)));
  BoosterParams params;
  params.rounds = training.rounds;
  params.learning_rate = training.learning_rate;
  params.min_child_weight = training.min_child_weight;
  params.lambda = training.lambda;
  params.seed = training.seed;
  auto booster = StumpBooster::Train(x, types, labels, params);
  if (!booster.ok()) return booster.status();
  auto contributions = booster->Contributions(x);
  if (!contributions.ok()) return contributions.status();
  const int stride = x.cols + 1;
  for (int c = 0; c < x.cols; ++c) {
    FillProbes(x, c, &features[c]);
    double sum = 0;
    for (int64_t r = 0; r < x.rows; ++r) sum += std::fabs((*contributions)[r * stride + c]);
    features[c].importance = sum / static_cast<double>(x.rows);
  }
  return AdditiveModel(std::move(target), scale, std::move(features), std::move(*booster));
}

Result<std::vector<double>> AdditiveModel::Predict(const FeatureMatrix& x) const {
  auto out = booster_.Predict(x);
  if (!out.ok()) return out.status();
  for (double& v : *out) v = FromScale(scale_, v);
  return out;
}

Result<Explanation> AdditiveModel::Explain() const {
  // A feature's contribution depends on its own value only, so each probe row sets one
  // feature and leaves the others missing.
  struct Probe {
    size_t feature;
    std::string label;
    int64_t rows;
  };
  std::vector<Probe> probes;
  std::vector<float> values;
  for (size_t f = 0; f < features_.size(); ++f) {
    const FeatureInfo& info = features_[f];
    const bool categorical = info.type == FeatureType::kCategorical;
    const size_t n = categorical ? info.categories.size() : info.probes.size();
    for (size_t i = 0; i < n; ++i) {
      probes.push_back({f, categorical ? info.categories[i] : FloatText(info.probes[i]),
                        i < info.point_rows.size() ? info.point_rows[i] : 0});
      values.push_back(categorical ? static_cast<float>(i) : static_cast<float>(info.probes[i]));
    }
    if (categorical || info.missing_rows > 0) {
      probes.push_back({f, categorical ? "(other)" : "(missing)", info.missing_rows});
      values.push_back(std::numeric_limits<float>::quiet_NaN());
    }
  }
  const int cols = static_cast<int>(features_.size());
  FeatureMatrix x(static_cast<int64_t>(probes.size()), cols);
  for (size_t r = 0; r < probes.size(); ++r) x.at(r, probes[r].feature) = values[r];
  Explanation e;
  e.target = target_;
  e.scale = ScaleName(scale_);
  std::vector<FeatureShape> shapes(features_.size());
  for (size_t f = 0; f < features_.size(); ++f) {
    shapes[f].name = features_[f].name;
    shapes[f].kind = features_[f].type == FeatureType::kCategorical ? "categorical" : "numeric";
    shapes[f].importance = features_[f].importance;
  }
  if (!probes.empty()) {
    auto c = booster_.Contributions(x);
    if (!c.ok()) return c.status();
    for (size_t r = 0; r < probes.size(); ++r) {
      shapes[probes[r].feature].points.push_back(
          {probes[r].label, (*c)[r * (cols + 1) + probes[r].feature], probes[r].rows});
    }
    e.bias = (*c)[cols];
  }
  std::stable_sort(shapes.begin(), shapes.end(), [](const FeatureShape& a, const FeatureShape& b) {
    if (a.importance != b.importance) return a.importance > b.importance;
    return a.name < b.name;
  });
  e.features = std::move(shapes);
  return e;
}

Result<json> AdditiveModel::ToJson() const {
  auto xgb = booster_.ToJson();
  if (!xgb.ok()) return xgb.status();
  json features = json::array();
  for (const FeatureInfo& f : features_) {
    features.push_back({{"name", f.name},
                        {"type", f.type == FeatureType::kCategorical ? "categorical" : "numeric"},
                        {"categories", f.categories},
                        {"probes", f.probes},
                        {"point_rows", f.point_rows},
                        {"missing_rows", f.missing_rows},
                        {"importance", f.importance}});
  }
  return json{{"target", target_},
              {"scale", ScaleName(scale_)},
              {"features", std::move(features)},
              // XGBoost's own JSON, kept as text: it writes NaN split conditions for
              // categorical splits, which strict JSON parsers refuse.
              {"xgboost_json", std::move(*xgb)}};
}

Result<AdditiveModel> AdditiveModel::FromJson(const json& j, const std::string& where) {
  try {
    std::string scale_name = j.at("scale").get<std::string>();
    if (scale_name != "log1p" && scale_name != "identity") {
      return Status::InvalidArgument(where + ": scale '" + scale_name +
                                     "': expected log1p or identity");
    }
    std::vector<FeatureInfo> features;
    std::vector<FeatureType> types;
    for (const json& f : j.at("features")) {
      FeatureInfo info;
      info.name = f.at("name").get<std::string>();
      const std::string type = f.at("type").get<std::string>();
      if (type != "numeric" && type != "categorical") {
        return Status::InvalidArgument(where + ": feature '" + info.name + "': type '" + type +
                                       "': expected numeric or categorical");
      }
      info.type = type == "categorical" ? FeatureType::kCategorical : FeatureType::kNumeric;
      info.categories = f.at("categories").get<std::vector<std::string>>();
      info.probes = f.at("probes").get<std::vector<double>>();
      info.point_rows = f.at("point_rows").get<std::vector<int64_t>>();
      info.missing_rows = f.at("missing_rows").get<int64_t>();
      info.importance = f.at("importance").get<double>();
      types.push_back(info.type);
      features.push_back(std::move(info));
    }
    if (features.empty()) return Status::InvalidArgument(where + ": a model without features");
    auto booster = StumpBooster::FromJson(j.at("xgboost_json").get<std::string>(), types);
    if (!booster.ok()) return Status::InvalidArgument(where + ": " + booster.status().message());
    return AdditiveModel(j.at("target").get<std::string>(),
                         scale_name == "log1p" ? TargetScale::kLog1p : TargetScale::kIdentity,
                         std::move(features), std::move(*booster));
  } catch (const json::exception& e) {
    return Status::InvalidArgument(where + ": not a predictor model: " + e.what());
  }
}

double Median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Evaluation Evaluate(std::string target, const std::vector<double>& train_y,
                    const std::vector<double>& test_y, const std::vector<double>& test_pred) {
  Evaluation e;
  e.target = std::move(target);
  e.train_rows = static_cast<int64_t>(train_y.size());
  e.test_rows = static_cast<int64_t>(test_y.size());
  e.train_mean =
      std::accumulate(train_y.begin(), train_y.end(), 0.0) / static_cast<double>(train_y.size());
  e.train_median = Median(train_y);
  double model = 0, mean = 0, median = 0;
  for (size_t i = 0; i < test_y.size(); ++i) {
    model += std::fabs(test_pred[i] - test_y[i]);
    mean += std::fabs(e.train_mean - test_y[i]);
    median += std::fabs(e.train_median - test_y[i]);
  }
  const double n = static_cast<double>(test_y.size());
  e.mae_model = test_y.empty() ? kNaN : model / n;
  e.mae_mean = test_y.empty() ? kNaN : mean / n;
  e.mae_median = test_y.empty() ? kNaN : median / n;
  return e;
}

namespace {
// JSON has no NaN; absent values are written as null.
json Number(double v) { return std::isnan(v) ? json(nullptr) : json(v); }
double Number(const json& j) { return j.is_null() ? kNaN : j.get<double>(); }
}  // namespace

json EvaluationToJson(const Evaluation& e) {
  return json{{"target", e.target},
              {"train_rows", e.train_rows},
              {"test_rows", e.test_rows},
              {"train_mean", e.train_mean},
              {"train_median", e.train_median},
              {"mae_model", Number(e.mae_model)},
              {"mae_mean", Number(e.mae_mean)},
              {"mae_median", Number(e.mae_median)},
              {"mae_last", Number(e.mae_last)}};
}

Result<Evaluation> EvaluationFromJson(const json& j, const std::string& where) {
  try {
    Evaluation e;
    e.target = j.at("target").get<std::string>();
    e.train_rows = j.at("train_rows").get<int64_t>();
    e.test_rows = j.at("test_rows").get<int64_t>();
    e.train_mean = j.at("train_mean").get<double>();
    e.train_median = j.at("train_median").get<double>();
    e.mae_model = Number(j.at("mae_model"));
    e.mae_mean = Number(j.at("mae_mean"));
    e.mae_median = Number(j.at("mae_median"));
    e.mae_last = Number(j.at("mae_last"));
    return e;
  } catch (const json::exception& ex) {
    return Status::InvalidArgument(where + ": bad evaluation record: " + ex.what());
  }
}

json TrainingToJson(const PredictorTraining& t) {
  return json{{"rounds", t.rounds},
              {"learning_rate", t.learning_rate},
              {"min_child_weight", t.min_child_weight},
              {"lambda", t.lambda},
              {"train_fraction", t.train_fraction},
              {"train_until", Number(t.train_until)},
              {"seed", t.seed}};
}

Result<json> ReadModelFile(const std::string& path, const std::string& kind) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path + ": cannot open model file");
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument(path + ": not a JSON predictor model");
  }
  if (j.value("format", "") != "schedkit-predictor" || j.value("version", 0) != 1) {
    return Status::InvalidArgument(path +
                                   ": not a schedkit predictor model (format schedkit-predictor, "
                                   "version 1)");
  }
  const std::string found = j.value("kind", "");
  if (found != "duration" && found != "throughput") {
    return Status::InvalidArgument(path + ": kind '" + found +
                                   "': expected duration or throughput");
  }
  if (!kind.empty() && found != kind) {
    return Status::InvalidArgument(path + ": a " + found + " model, expected a " + kind + " model");
  }
  return j;
}

Status WriteModelFile(const json& j, const std::string& path) {
  std::ofstream out(path);
  if (!out) return Status::IoError(path + ": cannot write");
  out << j.dump(1) << "\n";
  out.close();
  if (!out) return Status::IoError(path + ": write failed");
  return Status::Ok();
}

Result<size_t> TrainPrefix(const std::vector<double>& times, const PredictorTraining& t) {
  size_t k;
  if (std::isfinite(t.train_until)) {
    k = static_cast<size_t>(std::lower_bound(times.begin(), times.end(), t.train_until) -
                            times.begin());
  } else {
    if (!(t.train_fraction > 0 && t.train_fraction <= 1)) {
      return Status::InvalidArgument("train fraction must be in (0, 1]");
    }
    k = static_cast<size_t>(std::floor(t.train_fraction * static_cast<double>(times.size())));
  }
  if (k == 0) return Status::InvalidArgument("no training rows before the train cut");
  return k;
}

}  // namespace schedkit::predict
