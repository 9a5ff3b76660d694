// Gavel allocation benchmark: wall time of one solve of each allocation policy as the number
// of active jobs grows, on three GPU types. Not a test: nothing asserts on time. Results and
// the command line live in docs/performance.md and docs/gavel.md.
//
//   schedkit_gavel_bench [--jobs 100,1000,2000,10000] [--policy NAME]... [--seed N]
//                        [--throughputs table|distinct]
//
// Instances (seeded): GPUs per type max(36, jobs / 12) (36 each is Gavel's 108-GPU cluster;
// larger sizes keep about four active jobs per GPU, a loaded cluster). Scale factors
// 1/2/4/8 at 70/10/15/5 %. A throughput row: the fast type U(1, 10) steps/s, the middle type
// 0.4-0.9x and the slow type 0.1-0.4x of it. `table` (default): like Gavel's generator, every
// job is one of 26 job types, each with one row per scale factor (rows drawn once), so jobs
// repeat rows; `distinct`: every job draws its own row (the LPs' worst case). Steps 1e3-1e6
// and time since arrival 0-1e5 s per job. allox runs on the same jobs made single-GPU.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "mechanisms/portable_rng.h"
#include "schedkit/gavel.h"

namespace gv = schedkit::gavel;

namespace {

constexpr int kJobTypes = 26;
constexpr int kScaleFactors[] = {1, 2, 4, 8};

std::vector<double> DrawRow(schedkit::PortableRng& rng) {
  const double fast = rng.Uniform(1, 10);
  return {fast, fast * rng.Uniform(0.4, 0.9), fast * rng.Uniform(0.1, 0.4)};
}

gv::AllocationProblem MakeProblem(int jobs, uint64_t seed, bool table) {
  schedkit::PortableRng rng(seed);
  std::vector<std::vector<double>> rows;  // [job type * 4 + scale factor index]
  for (int i = 0; i < kJobTypes * 4; ++i) rows.push_back(DrawRow(rng));
  gv::AllocationProblem p;
  const int per_type = std::max(36, jobs / 12);
  p.types = {{"v100", per_type, 3.06}, {"p100", per_type, 1.46}, {"k80", per_type, 0.9}};
  for (int j = 0; j < jobs; ++j) {
    gv::AllocJob job;
    job.id = "j";  // Appended, not "j" + ...: GCC 12 warns (-Wrestrict) on that falsely.
    job.id += std::to_string(j);
    const double u = rng.Uniform();
    const int sf_index = u < 0.7 ? 0 : u < 0.8 ? 1 : u < 0.95 ? 2 : 3;
    job.scale_factor = kScaleFactors[sf_index];
    job.throughput =
        table ? rows[rng.Index(kJobTypes) * 4 + sf_index] : DrawRow(rng);
    job.steps_left = rng.Uniform(1e3, 1e6);
    job.time_since_arrival = rng.Uniform(0, 1e5);
    job.isolated_time = job.time_since_arrival;
    p.jobs.push_back(std::move(job));
  }
  return p;
}

// CPU seconds of this process: on a shared machine, wall time also counts other processes.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

std::vector<int> ParseList(const char* text) {
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(std::atoi(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {100, 1000, 2000, 10000};
  std::vector<std::string> policies;
  uint64_t seed = 1;
  bool table = true;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--jobs") == 0) sizes = ParseList(argv[i + 1]);
    else if (std::strcmp(argv[i], "--policy") == 0) policies.push_back(argv[i + 1]);
    else if (std::strcmp(argv[i], "--seed") == 0) seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (std::strcmp(argv[i], "--throughputs") == 0) table = std::strcmp(argv[i + 1], "distinct") != 0;
  }
  if (policies.empty()) {
    for (const auto& e : gv::BuiltinAllocationPolicies().entries()) policies.push_back(e.name);
  }
  std::printf("throughputs: %s\n", table ? "table (26 job types x 4 scale factors)" : "distinct");
  std::printf("%-26s %7s %6s %8s %8s %9s %14s\n", "policy", "jobs", "gpus", "wall_s", "cpu_s",
              "lp_solves", "objective");
  for (int jobs : sizes) {
    const gv::AllocationProblem p = MakeProblem(jobs, seed, table);
    // AlloX takes single-GPU jobs only: it runs on the same jobs with scale factor 1.
    gv::AllocationProblem single = p;
    for (gv::AllocJob& job : single.jobs) job.scale_factor = 1;
    for (const std::string& policy : policies) {
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = CpuSeconds();
      auto a = gv::Allocate(policy, policy == "allox" ? single : p);
      const double cpu = CpuSeconds() - cpu_start;
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!a.ok()) {  // E.g. allox on multi-GPU jobs.
        std::printf("%-26s %7d   %s\n", policy.c_str(), jobs, a.status().message().c_str());
        continue;
      }
      std::printf("%-26s %7d %6d %8.3f %8.3f %9d %14.6g\n", policy.c_str(), jobs,
                  p.total_gpus(), s, cpu, a->lp_solves, a->objective);
      std::fflush(stdout);
    }
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS %.1f MiB\n", usage.ru_maxrss / 1024.0);
  return 0;
}
