// `schedkit dag simulate` and `schedkit dag collect` (docs/dag.md, docs/cli.md).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "commands.h"
#include "schedkit/dag.h"

namespace schedkit::cli {
namespace {

struct DagArgs {
  DagConfig config;
  std::string scheduler = "fair";
  std::vector<std::string> opts;  // Scheduler options, key=value.
  std::string workload;
  std::string out;
  uint64_t seed = 0;
  int episodes = 1;
  int64_t steps = 1000;
  bool tasks = true;
};

void AddConfigOptions(CLI::App* cmd, DagArgs* a) {
  std::string names;
  for (const std::string& s : DagSchedulerNames()) names += (names.empty() ? "" : "|") + s;
  cmd->add_option("--scheduler", a->scheduler, names + " (default fair)");
  cmd->add_option("--opt", a->opts,
                  "scheduler option key=value, repeatable (decima: weights=PATH)");
  cmd->add_option("--executors", a->config.num_executors, "executors (default 50)");
  cmd->add_option("--jobs", a->config.job_arrival_cap, "jobs per episode (default 200)");
  cmd->add_option("--arrival-rate", a->config.job_arrival_rate,
                  "Poisson job arrivals per ms (default 4e-5)");
  cmd->add_option("--moving-delay", a->config.moving_delay_ms,
                  "ms for an executor to move between jobs (default 2000)");
  cmd->add_option("--warmup-delay", a->config.warmup_delay_ms,
                  "ms added to a fresh executor's first-wave task (default 1000)");
  cmd->add_option("--seed", a->seed, "episode seed (default 0)");
  cmd->add_option("--workload", a->workload,
                  "tpch.json or a native DAG file (default <data>/tpch/tpch.json)");
}

struct Loaded {
  DagWorkload workload;
  std::unique_ptr<DagScheduler> scheduler;
};

Result<Loaded> Load(const DagArgs& a) {
  SCHEDKIT_RETURN_IF_ERROR(a.config.Validate());
  Result<std::map<std::string, std::string>> opts = ParseOpts(a.opts);
  if (!opts.ok()) return opts.status();
  Result<std::unique_ptr<DagScheduler>> scheduler = MakeDagScheduler(a.scheduler, a.config, *opts);
  if (!scheduler.ok()) return scheduler.status();
  Result<DagWorkload> workload =
      LoadDagWorkload(a.workload.empty() ? DefaultDagWorkloadPath() : a.workload);
  if (!workload.ok()) return workload.status();
  return Loaded{std::move(*workload), std::move(*scheduler)};
}

std::vector<std::pair<std::string, std::string>> Context(const DagArgs& a, const Loaded& l,
                                                         uint64_t seed) {
  char rate[32];
  std::snprintf(rate, sizeof(rate), "%g", a.config.job_arrival_rate);
  std::string opts;
  for (const std::string& o : a.opts) opts += (opts.empty() ? "" : " ") + o;
  return {{"scheduler", a.scheduler},
          {"scheduler_options", opts},
          {"workload", l.workload.source},
          {"executors", std::to_string(a.config.num_executors)},
          {"jobs", std::to_string(a.config.job_arrival_cap)},
          {"arrival_rate_per_ms", rate},
          {"moving_delay_ms", std::to_string(a.config.moving_delay_ms)},
          {"warmup_delay_ms", std::to_string(a.config.warmup_delay_ms)},
          {"seed", std::to_string(seed)}};
}

int Simulate(const DagArgs& a) {
  if (a.episodes < 1) return Fail("--episodes must be >= 1");
  Result<Loaded> loaded = Load(a);
  if (!loaded.ok()) return Fail(loaded.status().message());
  DagRunOptions options;
  options.record_tasks = a.tasks && !a.out.empty() && a.episodes == 1;
  std::vector<DagSummary> runs;
  for (int k = 0; k < a.episodes; ++k) {
    const uint64_t seed = a.seed + static_cast<uint64_t>(k);
    Result<DagRunResult> run =
        RunDagSimulation(a.config, loaded->workload, *loaded->scheduler, seed, options);
    if (!run.ok()) return Fail(run.status().message());
    const DagSummary& s = run->summary;
    std::printf("dag %s seed %llu: %lld jobs, avg JCT %.3f s, makespan %.3f s, run time %.4f s "
                "(%lld decisions, %lld events)\n",
                a.scheduler.c_str(), static_cast<unsigned long long>(seed),
                static_cast<long long>(s.jobs), s.avg_jct_s, s.makespan_s, s.wall_s,
                static_cast<long long>(s.decisions), static_cast<long long>(s.events));
    runs.push_back(s);
    if (a.episodes == 1 && !a.out.empty()) {
      Status st = WriteDagOutputs(*run, Context(a, *loaded, seed), a.out);
      if (!st.ok()) return Fail(st.message());
    }
  }
  if (a.episodes > 1) {
    double mean = 0, var = 0;
    for (const DagSummary& s : runs) mean += s.avg_jct_s;
    mean /= runs.size();
    for (const DagSummary& s : runs) var += (s.avg_jct_s - mean) * (s.avg_jct_s - mean);
    const double sd = std::sqrt(var / (runs.size() - 1));
    const double half = 1.96 * sd / std::sqrt(static_cast<double>(runs.size()));
    std::printf("dag %s seeds %llu..%llu: avg JCT mean %.3f s, std %.3f s, 95%% CI +- %.3f s\n",
                a.scheduler.c_str(), static_cast<unsigned long long>(a.seed),
                static_cast<unsigned long long>(a.seed + a.episodes - 1), mean, sd, half);
    if (!a.out.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(a.out, ec);
      if (ec) return Fail(a.out + ": cannot create directory: " + ec.message());
      std::ofstream out(a.out + "/episodes.csv");
      if (!out) return Fail(a.out + "/episodes.csv: cannot open for writing");
      out << "seed,jobs,avg_jct_s,makespan_s,decisions,events,wall_s\n";
      for (int k = 0; k < a.episodes; ++k) {
        const DagSummary& s = runs[k];
        char line[256];
        std::snprintf(line, sizeof(line), "%llu,%lld,%.6f,%.6f,%lld,%lld,%.6f\n",
                      static_cast<unsigned long long>(a.seed + k), static_cast<long long>(s.jobs),
                      s.avg_jct_s, s.makespan_s, static_cast<long long>(s.decisions),
                      static_cast<long long>(s.events), s.wall_s);
        out << line;
      }
      if (!out) return Fail(a.out + "/episodes.csv: write failed");
    }
  }
  return 0;
}

int Collect(const DagArgs& a) {
  Result<Loaded> loaded = Load(a);
  if (!loaded.ok()) return Fail(loaded.status().message());
  Result<DagCollectStats> stats = CollectDagExperience(a.config, loaded->workload,
                                                       *loaded->scheduler, a.seed, a.steps, a.out);
  if (!stats.ok()) return Fail(stats.status().message());
  std::printf("dag collect %s: %lld steps from %lld episodes (%lld complete) -> %s\n",
              a.scheduler.c_str(), static_cast<long long>(stats->steps),
              static_cast<long long>(stats->episodes),
              static_cast<long long>(stats->completed_episodes), a.out.c_str());
  return 0;
}

int ListSchedulers() {
  for (const std::string& name : DagSchedulerNames()) {
    std::printf("%s\n", name.c_str());
    for (const auto& [key, help] : DagSchedulerOptions(name)) {
      std::printf("  --opt %s=...  %s\n", key.c_str(), help.c_str());
    }
  }
  return 0;
}

}  // namespace

void AddDagCommands(CLI::App& app, std::vector<Subcommand>& out) {
  CLI::App* dag = app.add_subcommand("dag", "Spark DAG job scheduling (spark-sched-sim semantics)");
  dag->require_subcommand(1);

  auto sim = std::make_shared<DagArgs>();
  CLI::App* simulate = dag->add_subcommand("simulate", "Run DAG episodes with a scheduler");
  AddConfigOptions(simulate, sim.get());
  simulate->add_option("--episodes", sim->episodes,
                       "run seeds seed..seed+K-1 and print the mean avg JCT with a 95% CI");
  simulate->add_option("--out", sim->out,
                       "write summary.json, jobs.csv, tasks.csv (one episode) or episodes.csv");
  simulate->add_flag("!--no-tasks", sim->tasks, "do not write tasks.csv");
  out.push_back({simulate, [sim] { return Simulate(*sim); }});

  auto col = std::make_shared<DagArgs>();
  CLI::App* collect = dag->add_subcommand("collect", "Record an experience pool (JSON lines)");
  AddConfigOptions(collect, col.get());
  collect->add_option("--steps", col->steps, "decisions to record (default 1000)");
  collect->add_option("--out", col->out, "output file (JSON lines)")->required();
  out.push_back({collect, [col] { return Collect(*col); }});

  CLI::App* schedulers = dag->add_subcommand("schedulers", "List the DAG schedulers and their options");
  out.push_back({schedulers, [] { return ListSchedulers(); }});
}

}  // namespace schedkit::cli
