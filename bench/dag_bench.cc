// DAG simulator speed: default-config episodes (200 jobs, 50 executors) with a heuristic
// scheduler or Decima. Prints per-episode wall time (best and median), decisions, time per
// decision, events/s and peak RSS. Nothing asserts on time; numbers go to docs/performance.md.
//   schedkit_dag_bench [scheduler=fair|fifo|fifo-half|decima|decima-greedy] [episodes=20]
//                      [first_seed=0]
//   schedkit_dag_bench load [repeats=10]   loading tpch.json: parsed, and from its cache
//   schedkit_dag_bench process [runs=20]   `schedkit dag simulate` (one default fair episode)
//                                          and `schedkit --version` as whole processes
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <unistd.h>

#include <filesystem>

#include "dag/workload_cache.h"
#include "schedkit/dag.h"

// CPU time of this process: on a shared machine wall time also counts waiting for a core.
double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

// tpch.json loaded `repeats` times parsed from text (no cache), then `repeats` times from
// its cache file (written once into a fresh folder first): best and median wall, mean CPU.
int LoadBench(int repeats) {
  const std::string path = std::string(SCHEDKIT_SOURCE_DIR) + "/data/tpch/tpch.json";
  const std::string dir = std::filesystem::temp_directory_path().string() +
                          "/schedkit_dag_bench_cache." + std::to_string(::getpid());
  for (const bool cached : {false, true}) {
    schedkit::dag::DagCacheOptions cache;
    if (cached) {
      cache.dir = dir;
      auto first = schedkit::dag::LoadDagWorkloadCached(path, cache);  // Writes the cache.
      if (!first.ok()) {
        std::fprintf(stderr, "%s\n", first.status().message().c_str());
        return 1;
      }
    }
    std::vector<double> walls;
    double cpu = 0;
    for (int i = 0; i < repeats; ++i) {
      const double cpu0 = CpuSeconds();
      const auto t0 = std::chrono::steady_clock::now();
      auto w = schedkit::dag::LoadDagWorkloadCached(path, cache);
      walls.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      cpu += CpuSeconds() - cpu0;
      if (!w.ok()) {
        std::fprintf(stderr, "%s\n", w.status().message().c_str());
        return 1;
      }
    }
    std::sort(walls.begin(), walls.end());
    std::printf("dag bench load %-11s best %7.2f ms, median %7.2f ms, mean CPU %7.2f ms (%d loads)\n",
                cached ? "(cache):" : "(parse):", walls.front() * 1e3, walls[walls.size() / 2] * 1e3,
                cpu / repeats * 1e3, repeats);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}

// One run of the built `schedkit` with `args`, its output thrown away: wall seconds from
// fork to exit, and the child's CPU seconds and peak RSS (KiB) from wait4. False if it could
// not run or did not exit with status 0.
bool RunSchedkit(const std::vector<std::string>& args, double* wall, double* cpu, long* rss_kib) {
  std::vector<char*> argv{const_cast<char*>(SCHEDKIT_CLI)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    execv(SCHEDKIT_CLI, argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) return false;
  *wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec +
         usage.ru_stime.tv_usec * 1e-6;
  *rss_kib = usage.ru_maxrss;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Issue 20's process target: a whole `schedkit dag simulate` (start-up, the cached TPC-H
// load, one fair episode, exit) under 100 ms. One untimed run first writes the workload
// cache if it is missing, as any earlier run would have.
int ProcessBench(int runs) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--version"}, std::vector<std::string>{"dag", "simulate"}}) {
    std::string line = "schedkit";
    for (const std::string& a : args) line += " " + a;
    std::vector<double> walls, cpus;
    long rss = 0;
    for (int i = -1; i < runs; ++i) {
      double wall = 0, cpu = 0;
      long run_rss = 0;
      if (!RunSchedkit(args, &wall, &cpu, &run_rss)) {
        std::fprintf(stderr, "dag bench process: `%s` failed\n", line.c_str());
        return 1;
      }
      if (i < 0) continue;
      walls.push_back(wall);
      cpus.push_back(cpu);
      rss = std::max(rss, run_rss);
    }
    std::sort(walls.begin(), walls.end());
    std::sort(cpus.begin(), cpus.end());
    std::printf("dag bench process %-22s best %7.2f ms, median %7.2f ms wall; median CPU %7.2f ms; "
                "peak RSS %5.1f MiB (%d runs)\n",
                ("`" + line + "`").c_str(), walls.front() * 1e3, walls[walls.size() / 2] * 1e3,
                cpus[cpus.size() / 2] * 1e3, rss / 1024.0, runs);
  }
  return 0;
}

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "fair";
  if (name == "load") return LoadBench(std::max(1, argc > 2 ? std::atoi(argv[2]) : 10));
  if (name == "process") return ProcessBench(std::max(1, argc > 2 ? std::atoi(argv[2]) : 20));
  const int episodes = argc > 2 ? std::atoi(argv[2]) : 20;
  const uint64_t first_seed = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;
  schedkit::DagConfig config;
  const auto t0 = std::chrono::steady_clock::now();
  auto workload = schedkit::LoadDagWorkload(std::string(SCHEDKIT_SOURCE_DIR) + "/data/tpch/tpch.json");
  if (!workload.ok()) {
    std::fprintf(stderr, "%s\n", workload.status().message().c_str());
    return 1;
  }
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto t1 = std::chrono::steady_clock::now();
  auto scheduler = schedkit::MakeDagScheduler(name, config);  // Decima: reads its weights.
  if (!scheduler.ok()) {
    std::fprintf(stderr, "%s\n", scheduler.status().message().c_str());
    return 1;
  }
  const double setup_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  std::vector<double> walls;
  int64_t events = 0, decisions = 0;
  double jct = 0, cpu = 0;
  for (int k = 0; k < episodes; ++k) {
    const double cpu0 = CpuSeconds();
    auto run = schedkit::RunDagSimulation(config, *workload, **scheduler, first_seed + k);
    if (!run.ok()) {
      std::fprintf(stderr, "%s\n", run.status().message().c_str());
      return 1;
    }
    cpu += CpuSeconds() - cpu0;
    walls.push_back(run->summary.wall_s);
    events += run->summary.events;
    decisions += run->summary.decisions;
    jct += run->summary.avg_jct_s;
  }
  std::vector<double> sorted = walls;
  std::sort(sorted.begin(), sorted.end());
  double total = 0;
  for (double w : walls) total += w;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("dag bench %s: %d episodes (seeds %llu..%llu), load %.3f s, scheduler setup %.3f s\n",
              name.c_str(), episodes, static_cast<unsigned long long>(first_seed),
              static_cast<unsigned long long>(first_seed + episodes - 1), load_s, setup_s);
  std::printf("  per episode: best %.2f ms, median %.2f ms, mean %.2f ms\n", sorted.front() * 1e3,
              sorted[sorted.size() / 2] * 1e3, total / episodes * 1e3);
  std::printf("  per episode CPU time: mean %.2f ms\n", cpu / episodes * 1e3);
  std::printf("  %.0f decisions and %.0f events per episode, %.2f M events/s, mean avg JCT %.3f s\n",
              static_cast<double>(decisions) / episodes, static_cast<double>(events) / episodes,
              events / total / 1e6, jct / episodes);
  std::printf("  %.2f us per decision (simulation included)\n", total / decisions * 1e6);
  std::printf("  peak RSS %.1f MiB\n", usage.ru_maxrss / 1024.0);
  return 0;
}
