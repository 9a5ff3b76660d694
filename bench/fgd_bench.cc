// FGD benchmark: pods placed per second by each GPU-sharing policy on the openb cluster
// (1,213 GPU nodes, 6,212 GPUs; one seed, the 130 % arrival run), and the wall time of the
// whole reference experiment (6 policies x seeds 42-51). Not a test: nothing asserts on
// time. Results and the command line live in docs/performance.md.
//
//   schedkit_fgd_bench [--pods FILE] [--nodes FILE] [--seeds N]
// Defaults: ../shared/data/alibaba/gpu-v2023/openb_pod_list_default.csv and
// openb_node_list_gpu_node.csv beside the source tree, 10 seeds.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "schedkit/sharing.h"

namespace sh = schedkit::sharing;

namespace {

const std::string kData = std::string(SCHEDKIT_SOURCE_DIR) + "/../shared/data/alibaba/gpu-v2023";

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string pods_path = kData + "/openb_pod_list_default.csv";
  std::string nodes_path = kData + "/openb_node_list_gpu_node.csv";
  int seeds = 10;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--pods") == 0) pods_path = argv[i + 1];
    else if (std::strcmp(argv[i], "--nodes") == 0) nodes_path = argv[i + 1];
    else if (std::strcmp(argv[i], "--seeds") == 0) seeds = std::atoi(argv[i + 1]);
  }
  auto pods = sh::LoadOpenbPods(pods_path);
  auto nodes = sh::LoadOpenbNodes(nodes_path);
  if (!pods.ok() || !nodes.ok()) {
    std::fprintf(stderr, "schedkit_fgd_bench: %s\n",
                 (!pods.ok() ? pods.status() : nodes.status()).message().c_str());
    return 1;
  }
  std::printf("%zu pods, %zu nodes, %d GPUs\n", pods->size(), nodes->nodes.size(),
              nodes->TotalGpus());
  std::printf("%-12s %10s %12s %10s\n", "policy", "pods", "pods/s", "run_s");
  for (const std::string& policy : sh::SharingPolicyNames()) {
    sh::FgdExperimentConfig one;
    one.policies = {policy};
    one.seeds = {42};
    auto runs = sh::RunFgdExperiment(*pods, *nodes, one);
    if (!runs.ok()) return 1;
    const sh::FgdRun& r = (*runs)[0];
    const int placed_attempts = r.curve.back().pods_arrived;
    std::printf("%-12s %10d %12.0f %10.3f\n", policy.c_str(), placed_attempts,
                placed_attempts / r.wall_seconds, r.wall_seconds);
  }
  sh::FgdExperimentConfig all;
  all.policies = sh::SharingPolicyNames();
  for (int s = 0; s < seeds; ++s) all.seeds.push_back(42 + s);
  const auto start = std::chrono::steady_clock::now();
  auto runs = sh::RunFgdExperiment(*pods, *nodes, all);
  if (!runs.ok()) return 1;
  std::printf("whole experiment: %zu runs (6 policies x %d seeds) in %.1f s on one core\n",
              runs->size(), seeds, Seconds(start));
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS %.1f MiB\n", usage.ru_maxrss / 1024.0);
  return 0;
}
