#include "predict/stump_booster.h"

#include <dlfcn.h>
#include <xgboost/c_api.h>  // Types and signatures only: the functions come from Xgb().

#include <cmath>
#include <limits>
#include <numeric>

#include "workload/csv.h"

namespace schedkit::predict {

namespace {

// XGBoost's C functions, looked up in the shared library the first time a booster is made
// rather than linked: libxgboost and its OpenMP runtime cost every `schedkit` process ~6 ms
// of dynamic linking, and only the predictors use them (docs/performance.md, "Start-up").
#define SCHEDKIT_XGB_FUNCTIONS(X)                                                           \
  X(XGBGetLastError) X(XGDMatrixCreateFromMat_omp) X(XGDMatrixSetStrFeatureInfo)             \
  X(XGDMatrixSetFloatInfo) X(XGDMatrixFree) X(XGBoosterCreate) X(XGBoosterFree)              \
  X(XGBoosterSetParam) X(XGBoosterUpdateOneIter) X(XGBoosterLoadModelFromBuffer)             \
  X(XGBoosterSaveModelToBuffer) X(XGBoosterPredict)

struct XgbApi {
#define SCHEDKIT_XGB_MEMBER(name) decltype(&::name) name = nullptr;
  SCHEDKIT_XGB_FUNCTIONS(SCHEDKIT_XGB_MEMBER)
#undef SCHEDKIT_XGB_MEMBER
  std::string error;  // Why the library or a function could not be loaded; "" if all were.
};

XgbApi LoadXgb() {
  XgbApi api;
  void* library = dlopen(SCHEDKIT_XGBOOST_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    api.error = std::string("cannot load XGBoost: ") +
                (why != nullptr ? why : SCHEDKIT_XGBOOST_LIBRARY);
    return api;
  }
#define SCHEDKIT_XGB_RESOLVE(name)                                                      \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(library, #name));              \
  if (api.name == nullptr && api.error.empty()) {                                       \
    api.error = std::string(SCHEDKIT_XGBOOST_LIBRARY) + " has no " + #name;             \
  }
  SCHEDKIT_XGB_FUNCTIONS(SCHEDKIT_XGB_RESOLVE)
#undef SCHEDKIT_XGB_RESOLVE
  return api;  // The library stays loaded for the process' life.
}

// Loaded once (thread-safe); its `error` says why it is unusable.
const XgbApi& Xgb() {
  static const XgbApi api = LoadXgb();
  return api;
}

Status XgbError(const char* call) {
  return Status::Internal(std::string("XGBoost ") + call + ": " + Xgb().XGBGetLastError());
}

#define SCHEDKIT_XGB(call)                   \
  do {                                       \
    if ((call) != 0) return XgbError(#call); \
  } while (0)

// Every entry point that makes a matrix or a booster asks first.
Status XgbLoaded() {
  return Xgb().error.empty() ? Status::Ok() : Status::Internal(Xgb().error);
}

// RAII for a DMatrix.
class Matrix {
 public:
  Matrix() = default;
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  ~Matrix() {
    if (h_ != nullptr) Xgb().XGDMatrixFree(h_);
  }
  DMatrixHandle* out() { return &h_; }
  DMatrixHandle get() const { return h_; }

 private:
  DMatrixHandle h_ = nullptr;
};

Status MakeMatrix(const FeatureMatrix& x, const std::vector<FeatureType>& types, Matrix* m) {
  SCHEDKIT_RETURN_IF_ERROR(XgbLoaded());
  if (static_cast<int>(types.size()) != x.cols || x.cols == 0) {
    return Status::InvalidArgument("feature matrix has " + std::to_string(x.cols) +
                                   " columns, the model " + std::to_string(types.size()));
  }
  SCHEDKIT_XGB(Xgb().XGDMatrixCreateFromMat_omp(x.values.data(), x.rows, x.cols,
                                              std::numeric_limits<float>::quiet_NaN(), m->out(),
                                              1));
  std::vector<const char*> names;
  for (FeatureType t : types) names.push_back(t == FeatureType::kCategorical ? "c" : "q");
  SCHEDKIT_XGB(
      Xgb().XGDMatrixSetStrFeatureInfo(m->get(), "feature_type", names.data(), names.size()));
  return Status::Ok();
}

}  // namespace

struct StumpBooster::Handle {
  BoosterHandle h = nullptr;
  ~Handle() {
    if (h != nullptr) Xgb().XGBoosterFree(h);
  }
};

FeatureMatrix::FeatureMatrix(int64_t r, int c)
    : rows(r), cols(c), values(r * c, std::numeric_limits<float>::quiet_NaN()) {}

namespace {

// Parameters that make every booster an additive model of stumps, fitted the same way on
// every machine. max_cat_to_onehot=1 selects partition splits for every categorical
// feature (one split may send any set of categories left).
Status SetParams(BoosterHandle h, const BoosterParams& p, double base_score) {
  using workload::FormatDouble;
  const std::vector<std::pair<std::string, std::string>> kv = {
      {"validate_parameters", "1"},
      {"verbosity", "0"},
      {"booster", "gbtree"},
      {"objective", "reg:squarederror"},
      {"tree_method", "hist"},
      {"max_depth", "1"},
      {"max_cat_to_onehot", "1"},
      {"nthread", "1"},
      {"seed", std::to_string(p.seed)},
      {"eta", FormatDouble(p.learning_rate)},
      {"min_child_weight", FormatDouble(p.min_child_weight)},
      {"lambda", FormatDouble(p.lambda)},
      {"base_score", FormatDouble(base_score)},
  };
  for (const auto& [k, v] : kv) SCHEDKIT_XGB(Xgb().XGBoosterSetParam(h, k.c_str(), v.c_str()));
  return Status::Ok();
}

}  // namespace

Result<StumpBooster> StumpBooster::Train(const FeatureMatrix& x,
                                         const std::vector<FeatureType>& types,
                                         const std::vector<float>& labels,
                                         const BoosterParams& params) {
  if (x.rows <= 0 || static_cast<int64_t>(labels.size()) != x.rows) {
    return Status::InvalidArgument("training needs at least one row and one label per row");
  }
  if (params.rounds < 1 || !(params.learning_rate > 0) || params.min_child_weight < 0 ||
      params.lambda < 0) {
    return Status::InvalidArgument(
        "booster parameters: rounds >= 1, learning rate > 0, min_child_weight >= 0, lambda >= 0");
  }
  Matrix m;
  SCHEDKIT_RETURN_IF_ERROR(MakeMatrix(x, types, &m));
  SCHEDKIT_XGB(Xgb().XGDMatrixSetFloatInfo(m.get(), "label", labels.data(), labels.size()));
  auto handle = std::make_shared<Handle>();
  DMatrixHandle dm = m.get();
  SCHEDKIT_XGB(Xgb().XGBoosterCreate(&dm, 1, &handle->h));
  const double mean =
      std::accumulate(labels.begin(), labels.end(), 0.0) / static_cast<double>(labels.size());
  SCHEDKIT_RETURN_IF_ERROR(SetParams(handle->h, params, mean));
  for (int i = 0; i < params.rounds; ++i) {
    SCHEDKIT_XGB(Xgb().XGBoosterUpdateOneIter(handle->h, i, m.get()));
  }
  return StumpBooster(std::move(handle), types);
}

Result<StumpBooster> StumpBooster::FromJson(const std::string& json,
                                            const std::vector<FeatureType>& types) {
  SCHEDKIT_RETURN_IF_ERROR(XgbLoaded());
  auto handle = std::make_shared<Handle>();
  SCHEDKIT_XGB(Xgb().XGBoosterCreate(nullptr, 0, &handle->h));
  SCHEDKIT_XGB(Xgb().XGBoosterLoadModelFromBuffer(handle->h, json.data(), json.size()));
  SCHEDKIT_XGB(Xgb().XGBoosterSetParam(handle->h, "nthread", "1"));
  return StumpBooster(std::move(handle), types);
}

Result<std::string> StumpBooster::ToJson() const {
  bst_ulong len = 0;
  const char* data = nullptr;
  SCHEDKIT_XGB(Xgb().XGBoosterSaveModelToBuffer(booster_->h, R"({"format": "json"})", &len, &data));
  return std::string(data, len);
}

Result<std::vector<double>> StumpBooster::Run(const FeatureMatrix& x, int option_mask) const {
  Matrix m;
  SCHEDKIT_RETURN_IF_ERROR(MakeMatrix(x, types_, &m));
  bst_ulong len = 0;
  const float* out = nullptr;
  SCHEDKIT_XGB(Xgb().XGBoosterPredict(booster_->h, m.get(), option_mask, 0, 0, &len, &out));
  return std::vector<double>(out, out + len);
}

Result<std::vector<double>> StumpBooster::Predict(const FeatureMatrix& x) const {
  return Run(x, /*output margin=*/1);
}

Result<std::vector<double>> StumpBooster::Contributions(const FeatureMatrix& x) const {
  return Run(x, /*feature contributions=*/4);
}

#undef SCHEDKIT_XGB
#undef SCHEDKIT_XGB_FUNCTIONS

}  // namespace schedkit::predict
