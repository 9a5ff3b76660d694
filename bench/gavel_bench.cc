// Gavel allocation benchmark: wall time of one solve of each allocation policy as the number
// of active jobs grows, on three GPU types. Not a test: nothing asserts on time. Results and
// the command line live in docs/performance.md and docs/gavel.md.
//
//   schedkit_gavel_bench [--jobs 100,1000,2000,10000] [--policy NAME]... [--seed N]
//                        [--throughputs table|distinct] [--pairs none|all]
//
// Instances (seeded): GPUs per type max(36, jobs / 12) (36 each is Gavel's 108-GPU cluster;
// larger sizes keep about four active jobs per GPU, a loaded cluster). Scale factors
// 1/2/4/8 at 70/10/15/5 %. A throughput row: the fast type U(1, 10) steps/s, the middle type
// 0.4-0.9x and the slow type 0.1-0.4x of it. `table` (default): like Gavel's generator, every
// job is one of 26 job types, each with one row per scale factor (rows drawn once), so jobs
// repeat rows; `distinct`: every job draws its own row (the LPs' worst case). Steps 1e3-1e6
// and time since arrival 0-1e5 s per job. allox runs on the same jobs made single-GPU.
// `--pairs all`: the policies that read pairs (the _packed ones, gandiva) also get every two
// jobs of equal scale factor as a pair on every type, each job co-located at U(0.3, 0.9) of
// its throughput there (drawn from seed + 1, so the jobs stay the same), as the simulated
// policy lists every candidate pair.
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

void AddAllPairs(uint64_t seed, gv::AllocationProblem* p) {
  schedkit::PortableRng rng(seed);
  const int m = static_cast<int>(p->jobs.size());
  for (int a = 0; a < m; ++a) {
    for (int b = a + 1; b < m; ++b) {
      if (p->jobs[a].scale_factor != p->jobs[b].scale_factor) continue;
      for (int k = 0; k < static_cast<int>(p->types.size()); ++k) {
        if (!p->Runs(a, k) || !p->Runs(b, k)) continue;
        const double ta = p->jobs[a].throughput[k] * rng.Uniform(0.3, 0.9);
        const double tb = p->jobs[b].throughput[k] * rng.Uniform(0.3, 0.9);
        p->pairs.push_back({a, b, k, ta, tb});
      }
    }
  }
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
  bool pairs = false;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--jobs") == 0) sizes = ParseList(argv[i + 1]);
    else if (std::strcmp(argv[i], "--policy") == 0) policies.push_back(argv[i + 1]);
    else if (std::strcmp(argv[i], "--seed") == 0) seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (std::strcmp(argv[i], "--throughputs") == 0) table = std::strcmp(argv[i + 1], "distinct") != 0;
    else if (std::strcmp(argv[i], "--pairs") == 0) pairs = std::strcmp(argv[i + 1], "all") == 0;
  }
  if (policies.empty()) {
    for (const auto& e : gv::BuiltinAllocationPolicies().entries()) policies.push_back(e.name);
  }
  std::printf("throughputs: %s, pairs: %s\n",
              table ? "table (26 job types x 4 scale factors)" : "distinct",
              pairs ? "all (to the policies that read them)" : "none");
  std::printf("%-26s %7s %6s %8s %8s %9s %14s\n", "policy", "jobs", "gpus", "wall_s", "cpu_s",
              "lp_solves", "objective");
  for (int jobs : sizes) {
    const gv::AllocationProblem p = MakeProblem(jobs, seed, table);
    // AlloX takes single-GPU jobs only: it runs on the same jobs with scale factor 1.
    gv::AllocationProblem single = p;
    for (gv::AllocJob& job : single.jobs) job.scale_factor = 1;
    gv::AllocationProblem paired = p;
    if (pairs) AddAllPairs(seed + 1, &paired);
    for (const std::string& policy : policies) {
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = CpuSeconds();
      auto a = gv::Allocate(policy, policy == "allox"          ? single
                                    : gv::ReadsPairs(policy) ? paired
                                                             : p);
      const double cpu = CpuSeconds() - cpu_start;
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!a.ok()) {  // E.g. allox on multi-GPU jobs.
        std::printf("%-26s %7d   %s\n", policy.c_str(), jobs, a.status().message().c_str());
        continue;
      }
      std::printf("%-26s %7d %6d %8.3f %8.3f %9d %14.6g\n", policy.c_str(), jobs,
                  p.total_gpus(), s, cpu, a->lp_solves, a->objective);
      if (pairs && gv::ReadsPairs(policy)) std::printf("  (%zu pairs)\n", paired.pairs.size());
      std::fflush(stdout);
    }
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS %.1f MiB\n", usage.ru_maxrss / 1024.0);
  return 0;
}
