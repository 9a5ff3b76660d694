// The built-in sharing policies' factories (one file each) and the reference's constants.
#ifndef SCHEDKIT_SHARING_POLICIES_POLICIES_H_
#define SCHEDKIT_SHARING_POLICIES_POLICIES_H_

#include <memory>

#include "sharing/policy.h"

namespace schedkit::sharing {

// The largest node of the reference cluster, which BestFit, DotProduct and Clustering
// normalise by.
inline constexpr int64_t kMaxSpecCpuMilli = 128000;
inline constexpr int64_t kMaxSpecGpuMilli = 8000;

std::unique_ptr<SharingPolicy> MakeFgdPolicy();
std::unique_ptr<SharingPolicy> MakeBestFitPolicy();
std::unique_ptr<SharingPolicy> MakeDotProductPolicy();
std::unique_ptr<SharingPolicy> MakePackingPolicy();
std::unique_ptr<SharingPolicy> MakeClusteringPolicy();
std::unique_ptr<SharingPolicy> MakeRandomPolicy();

}  // namespace schedkit::sharing

#endif  // SCHEDKIT_SHARING_POLICIES_POLICIES_H_
