// summary.json's statistics as a JSON object, in the documented order (docs/outputs.md):
// the one list of summary fields that every writer (summary.json, compare's
// comparison.json and comparison.csv) prints.
#ifndef SCHEDKIT_METRICS_SUMMARY_JSON_H_
#define SCHEDKIT_METRICS_SUMMARY_JSON_H_

#include <nlohmann/json.hpp>

#include "schedkit/metrics.h"

namespace schedkit {

nlohmann::ordered_json SummaryStatisticsJson(const Summary& s);

}  // namespace schedkit

#endif  // SCHEDKIT_METRICS_SUMMARY_JSON_H_
