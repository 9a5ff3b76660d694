// Simulator benchmarks: speed (jobs/s, events/s) and peak memory per case. Each case
// runs in its own child process so that its peak RSS is its own. Not a test: nothing
// here asserts on time. Results and the command line live in docs/performance.md.
//
//   schedkit_bench                 every case
//   schedkit_bench CASE...         only these (names as printed)
//   schedkit_bench --repeat N      best of N runs per case (default 3)
//   schedkit_bench --help          the cases; an unknown case name is an error
//   schedkit_bench --load-trace    synthetic cases: generate the whole Trace first instead
//                                  of streaming the jobs into the engine (memory compared)
//   schedkit_bench --jobs N        synthetic cases: only their first N jobs (a slice to
//                                  profile, e.g. under callgrind; same names)
// "best" is wall time (Simulator::Run); "cpu" the CPU time of the same run, the fair
// figure when other processes share the cores.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "mechanisms/finish_time_fairness.h"
#include "schedkit/job_source.h"
#include "schedkit/run.h"
#include "schedkit/trace.h"

namespace sk = schedkit;

namespace {

struct Case {
  std::string name;
  std::function<sk::Result<sk::Trace>()> trace;
  // Set for synthetic cases: the same jobs as `trace`, streamed (the default).
  std::function<sk::Result<std::unique_ptr<sk::JobSource>>()> stream;
  std::function<sk::ClusterSpec()> cluster;
  std::string policy;
  sk::CompatMode compat;
  // Set for cases that time a mechanism rather than a run; returns the exit code.
  std::function<int(const std::string& name, int repeat)> custom = {};
};

const std::string kShared = std::string(SCHEDKIT_SOURCE_DIR) + "/../shared";

sk::Result<sk::Trace> MuriTrace(const std::string& name) {
  return sk::LoadTrace(kShared + "/data/muri/traces/" + name + ".csv");
}

sk::ClusterSpec MuriCluster() {
  auto spec = sk::LoadClusterSpec(kShared + "/data/muri/specs/sim_n8g8.csv");
  return spec.ok() ? *spec : sk::ClusterSpec::Uniform(1, 8, 8, 92, 520);
}

// Blox-style synthetic jobs (seed 1): mean job size ~1.9 GPUs x ~60,000 s, so 1,024
// GPUs take ~32 jobs/h at full load. On 128 nodes x 8 GPUs, 26 jobs/h gives 80.7 %
// utilisation (busy GPU-seconds over the makespan) with little queueing, 28.7 jobs/h
// ~89 % and 30.6 jobs/h ~95 %, with queues, where preemptive policies do real work (30
// jobs/h gives 93 %, 32 jobs/h 99 % with an ever-growing queue). Ten times the jobs,
// GPUs and rate give about the same loads on 10,240 GPUs.
// --jobs N: the synthetic cases keep only their first N jobs (0 = all).
int64_t g_jobs_limit = 0;

sk::GeneratorConfig SyntheticConfig(int64_t jobs, double jobs_per_hour) {
  sk::GeneratorConfig config;
  config.num_jobs = g_jobs_limit > 0 ? std::min(jobs, g_jobs_limit) : jobs;
  config.jobs_per_hour = jobs_per_hour;
  config.seed = 1;
  return config;
}

// One finish-time-fairness solve (Themis' decision) on `jobs` unfinished jobs of a busy
// cluster (capacity binds): the mean time per solve over 200 decisions a minute apart,
// in which every job's elapsed time grows and the running ones' remaining work shrinks.
int FtfSolveBench(const std::string& name, int num_jobs, int repeat) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<sk::FtfJob> jobs(num_jobs);
  for (sk::FtfJob& j : jobs) {
    j.gpus = 1 << static_cast<int>(u(rng) * 4);
    j.elapsed_s = u(rng) * 1e5;
    j.solo_remaining_s = 600 + u(rng) * 2e5;
    j.isolated_s = j.elapsed_s + j.solo_remaining_s * (1 + 4 * u(rng));
  }
  const double capacity = num_jobs / 2.0;  // ~3.75 GPUs asked per job: 7.5x oversubscribed.
  constexpr int kDecisions = 200;
  double best = 1e300;
  long evaluations = 0, bound = 0;
  for (int r = 0; r < repeat; ++r) {
    std::vector<sk::FtfJob> now = jobs;
    evaluations = bound = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int d = 0; d < kDecisions; ++d) {
      const sk::FtfAllocation a = sk::SolveFinishTimeFairness(now, capacity, sk::FtfSelection::kCentre);
      evaluations += a.evaluations;
      bound += a.capacity_bound;
      for (size_t i = 0; i < now.size(); ++i) {
        now[i].elapsed_s += 60;
        now[i].solo_remaining_s = std::max(0.0, now[i].solo_remaining_s - 60 * a.share[i]);
      }
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("%-42s jobs %8d  best %8.4f s  %11.1f us/solve  %5.1f evaluations/solve  %3ld/%d "
              "binding  peak RSS %7.1f MiB\n",
              name.c_str(), num_jobs, best, best / kDecisions * 1e6,
              static_cast<double>(evaluations) / kDecisions, bound, kDecisions,
              usage.ru_maxrss / 1024.0);
  return 0;
}

// Forking and looking ahead on a 1,000-job state: 1,000 Blox jobs arriving at 1,000 jobs/h
// on 64 GPUs (seed 1), simulated under las until the last one has arrived; then the mean
// time of one Simulator::Fork (state and policy) over 50, one SimulateFrom per scheduling
// candidate, and the best over `repeat` of one `dynamic` round (its first decision: 9 candidates, each simulated to the end of every
// job in the system) with 1 and with 4 threads, and with forecast=recent.
int LookAheadBench(const std::string& name, int repeat) {
  sk::GeneratorConfig g;
  g.num_jobs = 1000;
  g.jobs_per_hour = 1000;
  g.seed = 1;
  auto trace = sk::GenerateTrace(g);
  if (!trace.ok()) return 1;
  const sk::ClusterSpec cluster = sk::ClusterSpec::Uniform(1, 8, 8, 0, 0);
  auto overheads = sk::DefaultRestartOverheads();
  if (!overheads.ok()) return 1;
  sk::SimulatorOptions options;
  options.overheads = *overheads;
  sk::PolicyRequest las;
  las.policy = "las";
  auto policy = sk::MakePolicy(las);
  if (!policy.ok()) return 1;
  sk::Simulator sim(&*trace, &cluster, options);
  sk::EventBatch batch;
  sk::Decisions d;
  while (sim.view().Now() < trace->jobs.back().submit_s && sim.NextDecisionPoint(&batch)) {
    d.Clear();
    (*policy)->Decide(sim.view(), batch, &d);
    if (!sim.Apply(d).ok()) return 1;
  }
  const size_t in_system = sim.view().RunningJobs().size() + sim.view().PendingJobs().size();
  constexpr int kForks = 50;
  const auto fork_start = std::chrono::steady_clock::now();
  for (int i = 0; i < kForks; ++i) {
    if (!sim.Fork(**policy).ok()) return 1;
  }
  const double fork_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - fork_start).count() / kForks;
  std::printf("%-42s jobs in system %5zu  fork (state + policy) %8.3f ms\n", name.c_str(),
              in_system, fork_s * 1e3);
  for (const char* name_of : {"fifo", "srtf", "las"}) {
    sk::PolicyRequest r;
    r.policy = name_of;
    auto fresh = sk::MakePolicy(r);
    if (!fresh.ok()) return 1;
    const auto start = std::chrono::steady_clock::now();
    auto finish = sk::SimulateFrom(sim.view(), fresh->get(), options);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!finish.ok()) return 1;
    double jct = 0;
    for (const sk::PredictedFinish& f : *finish) jct += f.finish_s - f.submit_s;
    std::printf("%-42s jobs in system %5zu  SimulateFrom %-4s (accept-all) %8.3f s  predicted avg JCT %.0f s\n",
                name.c_str(), in_system, name_of, s, jct / finish->size());
  }
  for (int threads : {1, 4}) {
    double best = 1e300;
    for (int r = 0; r < repeat; ++r) {
      sk::PolicyRequest dynamic;
      dynamic.policy = "dynamic";
      dynamic.options["threads"] = std::to_string(threads);
      auto meta = sk::MakePolicy(dynamic);
      if (!meta.ok()) {
        std::fprintf(stderr, "%s\n", meta.status().message().c_str());
        return 1;
      }
      sk::Decisions out;
      const auto start = std::chrono::steady_clock::now();
      (*meta)->Decide(sim.view(), sk::EventBatch(), &out);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (out.failed()) return 1;
    }
    std::printf("%-42s jobs in system %5zu  one dynamic round, 9 candidates, %d thread(s): best %8.3f s\n",
                name.c_str(), in_system, threads, best);
  }
  // The same round with forecast=recent: the policy hears of the jobs that arrived in the
  // last round (300 s; all still in the system) as this decision's arrivals, and every
  // look-ahead replays them 300 s later.
  sk::EventBatch recent;
  for (sk::JobId id : sim.view().PendingJobs()) {
    if (sim.view().Spec(id).submit_s > sim.view().Now() - 300) recent.arrived.push_back(id);
  }
  for (sk::JobId id : sim.view().RunningJobs()) {
    if (sim.view().Spec(id).submit_s > sim.view().Now() - 300) recent.arrived.push_back(id);
  }
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    sk::PolicyRequest dynamic;
    dynamic.policy = "dynamic";
    dynamic.options["threads"] = "1";
    dynamic.options["forecast"] = "recent";
    auto meta = sk::MakePolicy(dynamic);
    if (!meta.ok()) return 1;
    sk::Decisions out;
    const auto start = std::chrono::steady_clock::now();
    (*meta)->Decide(sim.view(), recent, &out);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (out.failed()) return 1;
  }
  std::printf("%-42s jobs in system %5zu  one dynamic round, forecast=recent (%zu replayed), 1 thread: best %8.3f s\n",
              name.c_str(), in_system, recent.arrived.size(), best);
  return 0;
}

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (const char* policy : {"srtf", "srsf", "tiresias"}) {
    for (sk::CompatMode compat : {sk::CompatMode::kMuri, sk::CompatMode::kNone}) {
      cases.push_back({std::string("muri-trace1/") + policy +
                           (compat == sk::CompatMode::kMuri ? "/compat-muri" : "/clean"),
                       [] { return MuriTrace("trace1"); }, nullptr, MuriCluster, policy, compat});
    }
  }
  // Themis solves finish-time fairness at every arrival and completion.
  for (const char* trace : {"trace1", "trace2", "trace4"}) {
    for (sk::CompatMode compat : {sk::CompatMode::kMuri, sk::CompatMode::kNone}) {
      const std::string t = trace;
      cases.push_back({"muri-" + t + "/themis" +
                           (compat == sk::CompatMode::kMuri ? "/compat-muri" : "/clean"),
                       [t] { return MuriTrace(t); }, nullptr, MuriCluster, "themis", compat});
    }
  }
  for (int jobs : {100, 1000, 5000}) {
    cases.push_back({"ftf-solve/" + std::to_string(jobs) + "-jobs", nullptr, nullptr, nullptr, "",
                     sk::CompatMode::kNone,
                     [jobs](const std::string& name, int repeat) {
                       return FtfSolveBench(name, jobs, repeat);
                     }});
  }
  cases.push_back({"lookahead/1000-jobs", nullptr, nullptr, nullptr, "", sk::CompatMode::kNone,
                   [](const std::string& name, int repeat) { return LookAheadBench(name, repeat); }});
  cases.push_back({"muri-trace1/antman/compat-muri", [] { return MuriTrace("trace1"); }, nullptr,
                   MuriCluster, "antman", sk::CompatMode::kMuri});
  // Muri-S / Muri-L (interleaving groups by blossom matching; autopack on, the default).
  for (const char* trace : {"trace1", "trace2", "trace4"}) {
    for (const char* policy : {"muri-s", "muri-l"}) {
      for (sk::CompatMode compat : {sk::CompatMode::kMuri, sk::CompatMode::kNone}) {
        const std::string t = trace;
        cases.push_back({"muri-" + t + "/" + policy +
                             (compat == sk::CompatMode::kMuri ? "/compat-muri" : "/clean"),
                         [t] { return MuriTrace(t); }, nullptr, MuriCluster, policy, compat});
      }
    }
  }
  const std::pair<const char*, double> loads[] = {{"80", 26}, {"89", 28.7}, {"95", 30.6}};
  for (const auto& [load, rate] : loads) {
    for (const char* policy : {"fifo", "sjf", "srtf", "srsf", "las", "tiresias"}) {
      const sk::GeneratorConfig g = SyntheticConfig(1'000'000, rate);
      cases.push_back({std::string("synthetic-1m-1024gpu-") + load + "pct/" + policy,
                       [g] { return sk::GenerateTrace(g); }, [g] { return sk::GenerateJobs(g); },
                       [] { return sk::ClusterSpec::Uniform(1, 128, 8, 0, 0); }, policy,
                       sk::CompatMode::kNone});
    }
  }
  // ~85 % utilisation on 10,240 GPUs.
  for (const char* policy : {"fifo", "srtf", "tiresias"}) {
    const sk::GeneratorConfig g = SyntheticConfig(10'000'000, 275);
    cases.push_back({std::string("synthetic-10m-10240gpu-85pct/") + policy,
                     [g] { return sk::GenerateTrace(g); }, [g] { return sk::GenerateJobs(g); },
                     [] { return sk::ClusterSpec::Uniform(1, 1280, 8, 0, 0); }, policy,
                     sk::CompatMode::kNone});
  }
  return cases;
}

// CPU seconds this process has used (user + system): on a busy machine, the run's cost
// without the time spent waiting for a core.
double CpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
         1e-6 * (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

// Runs in the child: prints one result line; returns the exit code. A synthetic case
// streams its jobs unless `load_trace`.
int RunCase(const Case& c, int repeat, bool load_trace) {
  if (c.custom) return c.custom(c.name, repeat);
  const bool streamed = c.stream && !load_trace;
  sk::Result<sk::Trace> trace = sk::Trace();
  if (!streamed) {
    trace = c.trace();
    if (!trace.ok()) {
      std::printf("%-42s skipped: %s\n", c.name.c_str(), trace.status().message().c_str());
      return 0;
    }
  }
  const sk::ClusterSpec cluster = c.cluster();
  auto overheads = sk::DefaultRestartOverheads();
  if (!overheads.ok()) {
    std::fprintf(stderr, "%s\n", overheads.status().message().c_str());
    return 1;
  }
  sk::PolicyRequest request;
  request.policy = c.policy;
  request.compat = c.compat;
  double best = 1e300;
  double best_cpu = 1e300;
  sk::RunOutput last;
  for (int i = 0; i < repeat; ++i) {
    sk::SimulatorOptions options;
    options.overheads = *overheads;
    const double cpu_before = CpuSeconds();
    auto out = [&]() -> sk::Result<sk::RunOutput> {
      if (!streamed) return sk::RunSimulation(*trace, cluster, request, options);
      auto jobs = c.stream();
      if (!jobs.ok()) return jobs.status();
      return sk::RunSimulation(**jobs, cluster, request, options);
    }();
    best_cpu = std::min(best_cpu, CpuSeconds() - cpu_before);
    if (!out.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), out.status().message().c_str());
      return 1;
    }
    best = std::min(best, out->summary.wall_s);
    last = std::move(out).value();
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double jobs = static_cast<double>(last.recorder->num_jobs());
  std::printf("%-42s jobs %8.0f  best %8.4f s (cpu %8.4f s)  %11.0f jobs/s  %11.0f events/s"
              "  peak RSS %7.1f MiB (%.0f B/job, %s)  util %.1f %%  avg JCT %.1f s\n",
              c.name.c_str(), jobs, best, best_cpu, jobs / best, last.stats.events / best,
              usage.ru_maxrss / 1024.0, usage.ru_maxrss * 1024.0 / jobs,
              streamed ? "streamed" : "trace in memory", 100 * last.summary.gpu_utilization,
              last.summary.avg_jct_s);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 3;
  bool load_trace = false;
  std::vector<std::string> only;
  for (int i = 1; i + 1 < argc; ++i) {  // Before the cases are built: it sizes them.
    if (std::strcmp(argv[i], "--jobs") == 0) {
      char* end = nullptr;
      g_jobs_limit = std::strtoll(argv[i + 1], &end, 10);
      if (*argv[i + 1] == '\0' || *end != '\0' || g_jobs_limit <= 0) {
        std::fprintf(stderr, "schedkit_bench: --jobs wants a positive number, got '%s'\n",
                     argv[i + 1]);
        return 2;
      }
    }
  }
  const std::vector<Case> cases = Cases();
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--jobs") == 0 && i + 1 < argc) {
      ++i;  // Read above.
    } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--load-trace") == 0) {
      load_trace = true;
    } else if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: schedkit_bench [--repeat N] [--load-trace] [--jobs N] [CASE...]\n"
                  "Runs each case (default: all) in its own process, best of N (default 3).\n"
                  "Synthetic cases stream their jobs into the engine; --load-trace generates\n"
                  "the whole trace first; --jobs N keeps only their first N jobs.\n"
                  "Cases:\n");
      for (const Case& c : cases) std::printf("  %s\n", c.name.c_str());
      return 0;
    } else {
      only.emplace_back(argv[i]);
    }
  }
  for (const std::string& name : only) {
    if (std::none_of(cases.begin(), cases.end(), [&](const Case& c) { return c.name == name; })) {
      std::fprintf(stderr, "schedkit_bench: unknown case '%s' (--help lists them)\n", name.c_str());
      return 2;
    }
  }
  int failures = 0;
  for (const Case& c : cases) {
    if (!only.empty() && std::find(only.begin(), only.end(), c.name) == only.end()) continue;
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      const int code = RunCase(c, repeat, load_trace);
      std::fflush(stdout);
      _exit(code);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
  }
  return failures == 0 ? 0 : 1;
}
