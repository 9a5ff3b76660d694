// Load test of the runtime (docs/performance.md): a real `schedkit serve` (in process,
// real gRPC over loopback, real SQLite store), N submissions from C concurrent clients,
// each with its own connection. The only node is drained first so that nothing runs:
// this measures the submission path (RPC + auth + validation + one SQLite transaction +
// the scheduling loop taking the arrivals). Verifies that no submission was lost.
//   schedkit_runtime_bench --jobs 10000 --clients 8
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "runtime/client.h"
#include "runtime/store.h"
#include "schedkit/runtime.h"

namespace sk = schedkit;
namespace pb = schedkit::v1;

int main(int argc, char** argv) {
  int jobs = 10000, clients = 8;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--jobs"))
      jobs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--clients"))
      clients = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "usage: %s [--jobs N] [--clients C]\n", argv[0]);
      return 2;
    }
  }
  if (jobs < 1 || clients < 1) {
    std::fprintf(stderr, "--jobs and --clients must be >= 1\n");
    return 2;
  }
  char tmpl[] = "/tmp/schedkit_runtime_bench.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  sk::RuntimeOptions options;
  options.state_dir = tmpl;
  options.gpus = 1;
  auto service = sk::RuntimeService::Start(options);
  if (!service.ok()) {
    std::fprintf(stderr, "schedkit_runtime_bench: %s\n", service.status().message().c_str());
    return 1;
  }
  auto endpoint = sk::runtime::ResolveEndpoint(tmpl, "", "");
  if (!endpoint.ok()) return 1;
  {
    sk::runtime::Client admin(*endpoint);
    pb::DrainNodeRequest drain;
    drain.set_node("local");
    pb::DrainNodeResponse dr;
    if (!admin.stub().DrainNode(admin.Context().get(), drain, &dr).ok()) return 1;
  }

  std::vector<std::vector<double>> latencies(clients);
  std::atomic<int> failed{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      sk::runtime::Client client(*endpoint, c + 1);
      const int mine = jobs / clients + (c < jobs % clients ? 1 : 0);
      latencies[c].reserve(mine);
      for (int k = 0; k < mine; ++k) {
        pb::SubmitRequest req;
        req.add_command("/bin/true");
        req.set_gpus(1);
        req.set_user("bench" + std::to_string(c));
        req.set_duration_s(60);
        pb::SubmitResponse resp;
        const auto t0 = std::chrono::steady_clock::now();
        grpc::Status st = client.stub().Submit(client.Context().get(), req, &resp);
        latencies[c].push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        if (!st.ok()) ++failed;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) {
    return all[std::min(all.size() - 1, static_cast<size_t>(p * all.size()))];
  };

  sk::runtime::Client admin(*endpoint);
  pb::ClusterStatusResponse status;
  admin.stub().ClusterStatus(admin.Context().get(), pb::ClusterStatusRequest(), &status);
  (*service)->Shutdown();
  service->reset();
  auto store = sk::runtime::Store::Open(std::string(tmpl) + "/schedkit.db");
  const int64_t stored = store.ok() ? (*store)->CountJobs().value() : -1;
  rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  std::printf("runtime load: %d submissions from %d clients in %.3f s: %.0f submissions/s\n", jobs,
              clients, wall, jobs / wall);
  std::printf("  latency p50 / p99 / max (ms)  %.2f / %.2f / %.2f\n", pct(0.5) * 1e3,
              pct(0.99) * 1e3, all.back() * 1e3);
  std::printf("  failed RPCs %d, pending seen by the service %lld, jobs in the store %lld\n",
              failed.load(), static_cast<long long>(status.pending()),
              static_cast<long long>(stored));
  std::printf("  peak RSS (service + clients) %.1f MB\n", ru.ru_maxrss / 1024.0);
  std::filesystem::remove_all(tmpl);
  const bool lost = failed.load() != 0 || stored != jobs || status.pending() != jobs;
  if (lost) std::fprintf(stderr, "schedkit_runtime_bench: submissions were lost\n");
  return lost ? 1 : 0;
}
