// The GPU-cluster learning environment (schedkit/cluster_env.h, docs/learning.md).
#include "schedkit/cluster_env.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <utility>

#include "metrics/summary_json.h"
#include "schedkit/cluster.h"
#include "schedkit/metrics.h"
#include "schedkit/registry.h"
#include "schedkit/simulator.h"

namespace schedkit {
namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "cluster env: %s\n", what.c_str());
  std::abort();
}

Result<std::unique_ptr<PlacementModule>> MakePlacement(const std::string& name) {
  const PlacementRegistry& registry = BuiltinRegistries().placements;
  const PlacementRegistry::Entry* entry = registry.Find(name);
  if (entry == nullptr) {
    return Status::NotFound("cluster env: unknown placement '" + name +
                            "' (known: " + registry.Names() + ")");
  }
  Result<OptionValues> values = OptionValues::Parse("placement " + name, entry->options, {});
  if (!values.ok()) return values.status();
  ModuleContext ctx{std::move(values).value()};
  return entry->factory(ctx);
}

// Empty iff `job` fits the empty cluster; else why not.
std::string CannotEverRun(const JobSpec& job, const ClusterSpec& cluster,
                          const PlacementModule& placement) {
  const ClusterState empty(&cluster);
  if (!placement.Place(job, empty).empty()) return "";
  return "job " + std::to_string(job.id) + " (" + std::to_string(job.gpus) +
         " GPUs) cannot be placed by '" + std::string(placement.Name()) +
         "' even on the empty cluster " + cluster.source;
}

Tensor Scalar(int64_t v) { return Tensor{{}, std::vector<int64_t>{v}}; }

class ClusterEnvironment final : public Environment {
 public:
  ClusterEnvironment(ClusterEnvConfig config, ClusterSpec cluster, std::optional<Trace> trace,
                     std::unique_ptr<PlacementModule> placement)
      : config_(std::move(config)),
        cluster_(std::move(cluster)),
        fixed_trace_(std::move(trace)),
        placement_(std::move(placement)) {}

  const char* Name() const override { return "cluster"; }

  Observation Reset(uint64_t seed) override {
    sim_.reset();  // It points into trace_.
    trace_ = fixed_trace_ ? *fixed_trace_ : GenerateEpisode(seed);
    sim_ = std::make_unique<Simulator>(&trace_, &cluster_, SimulatorOptions());
    recorder_ = std::make_unique<MetricsRecorder>(&trace_);
    sim_->AddObserver(recorder_.get());
    in_system_ = arrived_ = finished_ = steps_ = steps_with_hidden_queue_ = 0;
    sum_jct_s_ = 0;
    done_ = false;
    started_ = true;
    visible_.clear();
    places_.clear();
    running_rows_.clear();
    Advance(/*force=*/false);
    return MakeObservation();
  }

  Result<StepResult> Step(const Action& action) override {
    SCHEDKIT_RETURN_IF_ERROR(CheckAction(action));
    const int64_t i = action[0];
    if (QueuedHidden() > 0) ++steps_with_hidden_queue_;  // Some job was not a choice.
    if (i >= 0) {
      Decisions d;
      if (i < config_.max_queued) {
        d.start.push_back(StartDecision{visible_[i], places_[i]});
      } else {
        d.preempt.push_back(running_rows_[i - config_.max_queued]);
      }
      Status st = sim_->Apply(d);
      if (!st.ok()) Die("the simulator refused a decision the environment checked: " + st.message());
    }
    ++steps_;
    StepResult r;
    r.reward = Advance(/*force=*/i < 0);
    r.terminated = done_;
    r.observation = MakeObservation();
    r.info["wall_time"] = sim_->view().Now();
    r.info["steps"] = static_cast<double>(steps_);
    r.info["jobs_finished"] = static_cast<double>(finished_);
    r.info["sum_jct_s"] = sum_jct_s_;
    r.info["queued_hidden"] = static_cast<double>(QueuedHidden());
    r.info["running_hidden"] = static_cast<double>(RunningHidden());
    if (done_) AddEpisodeSummary(&r.info);
    return r;
  }

 private:
  Trace GenerateEpisode(uint64_t seed) const {
    GeneratorConfig g = config_.generator;
    g.seed = seed;
    Result<Trace> trace = GenerateTrace(g);
    if (!trace.ok()) Die(trace.status().message());  // The factory generated one already.
    for (const JobSpec& job : trace->jobs) {
      const std::string why = CannotEverRun(job, cluster_, *placement_);
      if (!why.empty()) Die("seed " + std::to_string(seed) + ": " + why);
    }
    return std::move(trace).value();
  }

  // Pending (running) jobs beyond the Q (R) rows: the agent cannot see or choose them.
  int64_t QueuedHidden() const {
    return done_ ? 0 : static_cast<int64_t>(sim_->view().PendingJobs().size() - visible_.size());
  }
  int64_t RunningHidden() const {
    return done_ ? 0 : static_cast<int64_t>(sim_->view().RunningJobs().size() - running_rows_.size());
  }

  // The last step's info: every summary.json statistic of the episode (docs/outputs.md),
  // and how many steps left some queued job out of the Q rows.
  void AddEpisodeSummary(std::map<std::string, double>* info) const {
    const Summary s = Summarize(*recorder_, cluster_, sim_->stats(), PercentileRule::kNearestRank,
                                /*wall_s=*/0);
    const nlohmann::ordered_json stats = SummaryStatisticsJson(s);
    for (const auto& [key, value] : stats.items()) {
      if (key != "wall_s") (*info)[key] = value.get<double>();
    }
    (*info)["steps_with_hidden_queue"] = static_cast<double>(steps_with_hidden_queue_);
  }

  Status CheckAction(const Action& action) const {
    if (!started_) return Status::InvalidArgument("cluster env: Step before Reset");
    if (done_) return Status::InvalidArgument("cluster env: the episode has ended; Reset");
    if (action.size() != 1) {
      return Status::InvalidArgument("cluster env: action must be {queued_idx}, got " +
                                     std::to_string(action.size()) + " values");
    }
    const int64_t i = action[0];
    if (i == -1) {
      if (CanWait()) return Status::Ok();
      return Status::InvalidArgument(
          "cluster env: cannot wait (-1): no job runs and none is still to arrive");
    }
    const int64_t q = config_.max_queued;
    if (config_.preemption && i >= q && i < q + static_cast<int64_t>(running_rows_.size())) {
      return Status::Ok();  // Preempt running row i - Q.
    }
    if (i < -1 || i >= static_cast<int64_t>(visible_.size())) {
      return Status::InvalidArgument(
          "cluster env: action " + std::to_string(i) + " is out of range [-1, " +
          std::to_string(visible_.size()) + ")" +
          (config_.preemption ? " and [" + std::to_string(q) + ", " +
                                    std::to_string(q + static_cast<int64_t>(running_rows_.size())) +
                                    ") (preempt a running row)"
                              : std::string()));
    }
    if (places_[i].empty()) {
      return Status::InvalidArgument("cluster env: queued job " + std::to_string(i) + " (id " +
                                     std::to_string(visible_[i]) + ", " +
                                     std::to_string(sim_->view().Spec(visible_[i]).gpus) +
                                     " GPUs) does not fit the free GPUs now");
    }
    return Status::Ok();
  }

  // Waiting makes progress only if something can still happen.
  bool CanWait() const {
    return !sim_->view().RunningJobs().empty() ||
           arrived_ < static_cast<int64_t>(trace_.jobs.size());
  }

  bool AnyFits() const {
    return std::any_of(places_.begin(), places_.end(),
                       [](const Placement& p) { return !p.empty(); });
  }

  // The agent has a choice besides waiting: a visible queued job fits, or (with
  // preemption) a job waits while another runs, so stopping one could make room.
  bool IsDecisionPoint() const {
    return AnyFits() || (config_.preemption && !visible_.empty() && !running_rows_.empty());
  }

  // Runs the simulation event by event until a visible queued job fits (at once unless
  // `force`: at least one event) or the episode ends. Returns minus the job-seconds spent in
  // the system meanwhile; the number of jobs in the system only changes at events.
  double Advance(bool force) {
    RefreshQueue();
    double reward = 0;
    while (force || !IsDecisionPoint()) {
      force = false;
      const Time before = sim_->view().Now();
      EventBatch batch;
      if (!sim_->NextDecisionPoint(&batch)) {
        if (finished_ != static_cast<int64_t>(trace_.jobs.size())) {
          Die("the simulation ended with " + std::to_string(trace_.jobs.size() - finished_) +
              " jobs unfinished");
        }
        done_ = true;
        visible_.clear();
        places_.clear();
        running_rows_.clear();
        break;
      }
      const Time now = sim_->view().Now();
      reward -= static_cast<double>(in_system_) * (now - before);
      for (JobId id : batch.finished) sum_jct_s_ += now - sim_->view().Spec(id).submit_s;
      arrived_ += static_cast<int64_t>(batch.arrived.size());
      finished_ += static_cast<int64_t>(batch.finished.size());
      in_system_ = arrived_ - finished_;
      Status st = sim_->Apply(Decisions{});  // Each decision point is answered once.
      if (!st.ok()) Die(st.message());
      RefreshQueue();
    }
    return reward;
  }

  // The first max_queued pending jobs and where each would go now, and the first
  // max_running running jobs by (last start, id).
  void RefreshQueue() {
    const ClusterView& view = sim_->view();
    visible_ = view.PendingJobs();
    if (visible_.size() > static_cast<size_t>(config_.max_queued))
      visible_.resize(config_.max_queued);
    places_.clear();
    for (JobId id : visible_) places_.push_back(placement_->Place(view.Spec(id), view.Resources()));
    running_rows_ = view.RunningJobs();
    std::sort(running_rows_.begin(), running_rows_.end(), [&view](JobId a, JobId b) {
      const Time sa = view.Status(a).last_start_s, sb = view.Status(b).last_start_s;
      return sa != sb ? sa < sb : a < b;
    });
    if (running_rows_.size() > static_cast<size_t>(config_.max_running))
      running_rows_.resize(config_.max_running);
  }

  double Remaining(const JobStatus& s) const {
    return config_.expose_remaining ? s.remaining_s : -1.0;
  }

  Observation MakeObservation() const {
    const ClusterView& view = sim_->view();
    const Time now = view.Now();
    const int64_t q = config_.max_queued, r = config_.max_running;
    const int64_t qc = static_cast<int64_t>(ClusterEnvQueuedColumns().size());
    const int64_t rc = static_cast<int64_t>(ClusterEnvRunningColumns().size());
    std::vector<double> queued(q * qc, 0.0), running(r * rc, 0.0);
    std::vector<int64_t> queued_mask(q, 0), action_mask(q, 0), queued_ids(q, -1);
    std::vector<int64_t> running_mask(r, 0), running_ids(r, -1);
    for (size_t i = 0; i < visible_.size(); ++i) {
      const JobStatus s = view.Status(visible_[i]);
      double* row = &queued[i * qc];
      row[0] = s.spec->gpus;
      row[1] = now - s.spec->submit_s;
      row[2] = Remaining(s);
      queued_mask[i] = 1;
      action_mask[i] = places_[i].empty() ? 0 : 1;
      queued_ids[i] = visible_[i];
    }
    std::vector<int64_t> preempt_mask(r, 0);
    for (size_t i = 0; i < running_rows_.size(); ++i) {
      const JobStatus s = view.Status(running_rows_[i]);
      double* row = &running[i * rc];
      row[0] = s.spec->gpus;
      row[1] = now - s.last_start_s;
      row[2] = s.attained_gpu_s;
      row[3] = Remaining(s);
      running_mask[i] = 1;
      preempt_mask[i] = config_.preemption ? 1 : 0;
      running_ids[i] = running_rows_[i];
    }
    Observation o;
    o["queued"] = Tensor{{q, qc}, std::move(queued)};
    o["queued_mask"] = Tensor{{q}, std::move(queued_mask)};
    o["action_mask"] = Tensor{{q}, std::move(action_mask)};
    o["queued_ids"] = Tensor{{q}, std::move(queued_ids)};
    o["running"] = Tensor{{r, rc}, std::move(running)};
    o["running_mask"] = Tensor{{r}, std::move(running_mask)};
    o["running_ids"] = Tensor{{r}, std::move(running_ids)};
    o["preempt_mask"] = Tensor{{r}, std::move(preempt_mask)};
    o["num_queued"] = Scalar(done_ ? 0 : static_cast<int64_t>(view.PendingJobs().size()));
    o["num_running"] = Scalar(done_ ? 0 : static_cast<int64_t>(view.RunningJobs().size()));
    o["free_gpus"] = Scalar(view.Resources().total_free_gpus());
    o["total_gpus"] = Scalar(view.Resources().total_gpus());
    o["can_wait"] = Scalar(!done_ && CanWait() ? 1 : 0);
    o["wall_time"] = Tensor{{}, std::vector<double>{now}};
    return o;
  }

  const ClusterEnvConfig config_;
  const ClusterSpec cluster_;
  const std::optional<Trace> fixed_trace_;  // Set iff the workload is a trace file.
  const std::unique_ptr<PlacementModule> placement_;

  Trace trace_;  // This episode's jobs.
  std::unique_ptr<Simulator> sim_;
  std::vector<JobId> visible_;     // The first max_queued pending jobs, by arrival.
  std::vector<Placement> places_;  // Where each would go now; empty if it does not fit.
  std::vector<JobId> running_rows_;  // The first max_running running jobs, by (start, id).
  std::unique_ptr<MetricsRecorder> recorder_;  // This episode's, for the summary.
  int64_t in_system_ = 0, arrived_ = 0, finished_ = 0, steps_ = 0;
  int64_t steps_with_hidden_queue_ = 0;
  double sum_jct_s_ = 0;
  bool done_ = false;
  bool started_ = false;
};

}  // namespace

Status ClusterEnvConfig::Validate() const {
  if (max_queued < 1) return Status::InvalidArgument("cluster env: max_queued must be >= 1");
  if (max_running < 1) return Status::InvalidArgument("cluster env: max_running must be >= 1");
  if (trace_path.empty()) {
    if (generator.num_jobs < 1) {
      return Status::InvalidArgument("cluster env: generator.num_jobs must be >= 1");
    }
    if (!(generator.jobs_per_hour > 0)) {
      return Status::InvalidArgument("cluster env: generator.jobs_per_hour must be > 0");
    }
  }
  return Status::Ok();
}

const std::vector<std::string>& ClusterEnvQueuedColumns() {
  static const std::vector<std::string> kColumns = {"gpus", "wait_s", "remaining_s"};
  return kColumns;
}

const std::vector<std::string>& ClusterEnvRunningColumns() {
  static const std::vector<std::string> kColumns = {"gpus", "age_s", "attained_gpu_s",
                                                    "remaining_s"};
  return kColumns;
}

Result<std::unique_ptr<Environment>> MakeClusterEnvironment(const ClusterEnvConfig& config) {
  SCHEDKIT_RETURN_IF_ERROR(config.Validate());
  const std::string cluster_path =
      config.cluster_path.empty() ? DataDir() + "/clusters/muri_n8g8.csv" : config.cluster_path;
  Result<ClusterSpec> cluster = LoadClusterSpec(cluster_path);
  if (!cluster.ok()) return cluster.status();
  Result<std::unique_ptr<PlacementModule>> placement = MakePlacement(config.placement);
  if (!placement.ok()) return placement.status();
  std::optional<Trace> trace;
  std::string where;
  if (!config.trace_path.empty()) {
    Result<Trace> loaded = LoadTrace(config.trace_path, config.trace_options);
    if (!loaded.ok()) return loaded.status();
    if (loaded->jobs.empty()) return Status::InvalidArgument(config.trace_path + ": no jobs");
    trace = std::move(loaded).value();
    where = config.trace_path;
  } else {
    Result<Trace> sample = GenerateTrace(config.generator);  // Fails on a bad generator config.
    if (!sample.ok()) return sample.status();
    // The Blox generator asks for up to 8 GPUs: each episode's jobs must all be placeable.
    sample->jobs.push_back(JobBuilder(-1).Gpus(8).Duration(1).Build());
    trace = std::move(sample).value();
    where = "generator";
  }
  for (const JobSpec& job : trace->jobs) {
    const std::string why = CannotEverRun(job, *cluster, **placement);
    if (!why.empty()) return Status::InvalidArgument(where + ": " + why);
  }
  if (config.trace_path.empty()) trace.reset();
  return std::unique_ptr<Environment>(std::make_unique<ClusterEnvironment>(
      config, std::move(cluster).value(), std::move(trace), std::move(placement).value()));
}

}  // namespace schedkit
