// Fuzz target: the side files that runs read besides traces and clusters. The input's
// first line names the loader, the rest is the file:
//   vc-config, estimates, share-scores, colocate, throughput-forecast  (Lucid, lucid.h)
//   throughput-history, duration-model, throughput-model               (predict.h)
//   restart-overheads                                                  (simulator.h)
//   openb-pods, openb-nodes                                            (sharing.h)
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_input.h"
#include "schedkit/lucid.h"
#include "schedkit/predict.h"
#include "schedkit/sharing.h"
#include "schedkit/simulator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace schedkit;
  fuzz::Parts parts(data, size);
  const std::string_view kind = parts.Next();
  const std::string path = fuzz::InputFiles::Get().Write("side.csv", parts.Rest());
  if (kind == "vc-config") {
    (void)lucid::LoadVcConfig(path);
  } else if (kind == "estimates") {
    (void)lucid::LoadEstimates(path);
  } else if (kind == "share-scores") {
    (void)lucid::LoadShareScores(path);
  } else if (kind == "colocate") {
    (void)lucid::LoadColocateSpeeds(path);
  } else if (kind == "throughput-forecast") {
    (void)lucid::LoadThroughputForecast(path);
  } else if (kind == "throughput-history") {
    (void)LoadThroughputHistory(path);
  } else if (kind == "duration-model") {
    (void)PredictorKind(path);
    (void)DurationEstimator::Load(path);
  } else if (kind == "throughput-model") {
    (void)PredictorKind(path);
    (void)ThroughputForecaster::Load(path);
  } else if (kind == "restart-overheads") {
    (void)RestartOverheads::Load(path, 10);
  } else if (kind == "openb-pods") {
    (void)sharing::LoadOpenbPods(path);
  } else if (kind == "openb-nodes") {
    (void)sharing::LoadOpenbNodes(path);
  }
  return 0;
}
