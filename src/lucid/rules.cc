#include "lucid/rules.h"

namespace schedkit::lucid {
namespace {

constexpr double kGpuMemoryLimitMb = 24576;  // Lucid's GPUs are RTX 3090s.
constexpr double kUnknownEstimateS = 1000;
constexpr int kMaxShareScoreSum = 2;
constexpr double kMaxGuestPriorityRatio = 2;
constexpr double kPackingOffAtMostGpuJobs = 2;
// What Lucid's in-place-filtered forecast table answers once it is empty.
constexpr double kExhaustedForecastGpuJobs = 10;

}  // namespace

WorkloadKey KeyOf(const JobSpec& job) {
  return {job.profile.model, job.profile.dataset, job.profile.batch_size, job.profile.amp};
}

double Priority(double estimate_s, int gpus) {
  return (estimate_s < 0 ? kUnknownEstimateS : estimate_s) * gpus;
}

bool MayShare(const Sharer& guest, const Sharer& host) {
  return guest.gpus <= kGpusPerNode && host.gpus == guest.gpus &&
         host.gmem_mb < kGpuMemoryLimitMb - guest.gmem_mb &&
         guest.share_score + host.share_score <= kMaxShareScoreSum &&
         guest.priority <= host.priority * kMaxGuestPriorityRatio;
}

bool IsUnmeasuredModel(const std::string& model) {
  return model == "NeuMF" || model == "ResNet50" || model == "BERT" || model == "Transformer";
}

std::optional<PairSpeeds> LookupPairSpeeds(const PairSpeedTable& table, const JobSpec& guest,
                                           const JobSpec& host) {
  if (IsUnmeasuredModel(guest.profile.model) || IsUnmeasuredModel(host.profile.model))
    return PairSpeeds{1, 1};
  const WorkloadKey g = KeyOf(guest), h = KeyOf(host);
  if (auto it = table.find({g, h}); it != table.end()) return it->second;
  if (auto it = table.find({h, g}); it != table.end()) {
    return PairSpeeds{it->second.speed2, it->second.speed1};
  }
  return std::nullopt;
}

bool PackingAllowed(const ForecastView& forecast, int64_t now, int64_t previous) {
  const double mean =
      forecast.Mean(forecast.data().pred_gpu_job, now, previous, kExhaustedForecastGpuJobs);
  return !(mean <= kPackingOffAtMostGpuJobs);
}

}  // namespace schedkit::lucid
