# Predictors (src/predict, docs/predict.md): XGBoost's C library (Debian's libxgboost-dev).
# Only src/predict/xgboost_booster.cc includes <xgboost/c_api.h>; no XGBoost type reaches a header.
find_package(PkgConfig REQUIRED)
pkg_check_modules(XGBOOST REQUIRED IMPORTED_TARGET xgboost)
target_link_libraries(schedkit_core PUBLIC PkgConfig::XGBOOST)
