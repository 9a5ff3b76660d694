// Job-name tokens for the duration estimator.
#ifndef SCHEDKIT_PREDICT_JOB_NAME_H_
#define SCHEDKIT_PREDICT_JOB_NAME_H_

#include <string>
#include <string_view>
#include <vector>

namespace schedkit::predict {

// The distinct tokens of a job name, in order of first appearance: maximal runs of ASCII
// letters (lower-cased) or of digits; everything else separates. "ResNet50_bs64-ft" ->
// {"resnet", "50", "bs", "64", "ft"}.
std::vector<std::string> NameTokens(std::string_view name);

}  // namespace schedkit::predict

#endif  // SCHEDKIT_PREDICT_JOB_NAME_H_
