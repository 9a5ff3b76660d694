// The runtime engine in process (a real SQLite store, the real local backend, real
// processes): the EventBatch contract of decision.h (a job is listed as finished only after
// the batch that listed it as arrived, never in the same batch, and never twice), a
// policy's error channel, an older store's new columns, and every registered policy on
// the runtime.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/backend.h"
#include "runtime/engine.h"
#include "runtime/policy_support.h"
#include "runtime/store.h"
#include "runtime_itest_util.h"
#include "schedkit/registry.h"

namespace schedkit::runtime {
namespace {

// FIFO, with every batch it is handed checked against the contract.
class ContractCheckingPolicy : public Policy {
 public:
  explicit ContractCheckingPolicy(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  std::string_view Name() const override { return inner_->Name(); }
  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (JobId id : events.arrived) {
        if (!told_.insert(id).second)
          violations_.push_back("job " + std::to_string(id) + " arrived twice");
      }
      for (JobId id : events.finished) {
        const bool same_batch =
            std::find(events.arrived.begin(), events.arrived.end(), id) != events.arrived.end();
        if (same_batch)
          violations_.push_back("job " + std::to_string(id) + " arrived and finished in one batch");
        if (!told_.count(id))
          violations_.push_back("job " + std::to_string(id) + " finished unannounced");
        if (!ended_.insert(id).second)
          violations_.push_back("job " + std::to_string(id) + " finished twice");
      }
    }
    inner_->Decide(view, events, out);
  }
  std::vector<std::string> violations() const {
    std::lock_guard<std::mutex> lock(mu_);
    return violations_;
  }

 private:
  std::unique_ptr<Policy> inner_;
  mutable std::mutex mu_;
  std::set<JobId> told_, ended_;
  std::vector<std::string> violations_;
};

// An engine on a fresh state directory with `gpus` local slots.
std::unique_ptr<Engine> StartEngine(const std::string& name, int gpus,
                                    std::unique_ptr<Policy> policy) {
  RuntimeOptions options;
  options.gpus = gpus;
  return testing::StartEngineWith(name, options, std::move(policy));
}

std::unique_ptr<Policy> Builtin(const std::string& name) {
  PolicyRequest request;
  request.policy = name;
  // Gavel re-solves at most every resolve_s (1920 s, real seconds here): a job submitted just
  // after a solve has no allocation until the next one, so whether a test's jobs ran within
  // its minute depended on when the engine's first decision fell between the submits.
  if (name == "gavel") request.options["resolve_s"] = "0";
  Result<std::unique_ptr<Policy>> policy = MakePolicy(request);
  EXPECT_TRUE(policy.ok()) << policy.status().message();
  return policy.ok() ? std::move(policy).value() : nullptr;
}

bool AllIn(const Engine& engine, const std::vector<JobId>& jobs, RunState state) {
  for (JobId id : jobs) {
    Result<JobRecord> r = engine.Get(id);
    if (!r.ok() || r->state != state) return false;
  }
  return true;
}

bool WaitUntil(const std::function<bool()>& done, double timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!done() && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

TEST(RuntimeEngine, SubmitThenCancelNeverReachesThePolicyInOneBatch) {
  const std::string dir = ::testing::TempDir();
  auto checking = std::make_unique<ContractCheckingPolicy>(Builtin("fifo"));
  ContractCheckingPolicy* policy = checking.get();
  std::unique_ptr<Engine> engine = StartEngine("cancel", 1, std::move(checking));
  ASSERT_NE(engine, nullptr);
  // Nothing starts on a drained node: every job stays pending until it is cancelled, and a
  // cancel issued right after its submit usually lands before the loop's next decision.
  ASSERT_TRUE(engine->SetDrained("local", true).ok());
  for (int i = 0; i < 200; ++i) {
    JobRecord job;
    job.command = {"true"};
    job.gpus = 1;
    job.working_dir = dir;
    Result<JobId> id = engine->Submit(job);
    ASSERT_TRUE(id.ok()) << id.status().message();
    if (i % 10 == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // Let some be told.
    Result<RunState> was = engine->Cancel(*id);
    ASSERT_TRUE(was.ok()) << was.status().message();
    EXPECT_EQ(*was, RunState::kPending);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // A last decision.
  engine->Stop();
  EXPECT_EQ(engine->Summary().pending, 0);
  const std::vector<std::string> violations = policy->violations();
  EXPECT_TRUE(violations.empty()) << violations.size()
                                  << " violations, first: " << violations.front();
}

// Fails its first decision before deciding anything (as Themis does when its LP solver
// fails), keeping that batch's events for the next one; then decides as FIFO.
class FailsOncePolicy : public Policy {
 public:
  explicit FailsOncePolicy(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  std::string_view Name() const override { return "fails-once"; }
  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    kept_.arrived.insert(kept_.arrived.end(), events.arrived.begin(), events.arrived.end());
    kept_.finished.insert(kept_.finished.end(), events.finished.begin(), events.finished.end());
    if (!failed_) {
      failed_ = true;
      out->Fail("LP solver: status 1");
      return;
    }
    inner_->Decide(view, kept_, out);
    kept_ = EventBatch();
  }

 private:
  std::unique_ptr<Policy> inner_;
  EventBatch kept_;
  bool failed_ = false;
};

// A failed decision applies nothing and does not take the service down: the policy is
// asked again at the next poll and the job runs.
TEST(RuntimeEngine, APolicyFailureIsLoggedAndTheServiceGoesOn) {
  std::unique_ptr<Engine> engine =
      StartEngine("fails_once", 1, std::make_unique<FailsOncePolicy>(Builtin("fifo")));
  ASSERT_NE(engine, nullptr);
  JobRecord job;
  job.command = {"true"};
  job.gpus = 1;
  job.working_dir = ::testing::TempDir();
  Result<JobId> id = engine->Submit(job);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_TRUE(WaitUntil([&] { return AllIn(*engine, {*id}, RunState::kSucceeded); }, 20));
  EXPECT_FALSE(engine->stopped());
}

// Starts each pending job alone on GPUs `gpu_mask` of node 0 at `rate`, whatever it asked
// for, and, while one runs, records what the view says of it at each wake-up.
class StatusWatcher : public Policy {
 public:
  struct Seen {
    double executed_s, remaining_s, attained_gpu_s;
    // Running, Status and PlacementOf gave the same placement (view.h); and every job
    // the watcher had seen pending, up to then, had none.
    bool placement_iff_running;
  };
  StatusWatcher(uint64_t gpu_mask, double rate) : gpu_mask_(gpu_mask), rate_(rate) {}
  std::string_view Name() const override { return "status-watcher"; }
  void Decide(const ClusterView& view, const EventBatch&, Decisions* out) override {
    for (JobId id : view.PendingJobs()) {
      pending_unplaced_ = pending_unplaced_ && view.Status(id).placement == nullptr &&
                          view.PlacementOf(id) == nullptr;
      Placement p;
      p.shares.push_back(NodeShare{.node = 0, .gpu_mask = gpu_mask_});
      if (!view.Resources().CanAllocate(p)) continue;
      out->start.push_back(StartDecision{id, p, rate_});
    }
    for (JobId id : view.RunningJobs()) {
      const JobStatus s = view.Status(id);
      const Placement* placed = view.PlacementOf(id);
      const bool placement_iff_running = pending_unplaced_ && s.placement != nullptr &&
                                         placed != nullptr && *placed == *s.placement;
      std::lock_guard<std::mutex> lock(mu_);
      seen_.push_back({s.executed_s, s.remaining_s, s.attained_gpu_s, placement_iff_running});
    }
    out->wake_at = view.Now() + 0.05;
  }
  std::vector<Seen> seen() const {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

 private:
  const uint64_t gpu_mask_;
  const double rate_;
  bool pending_unplaced_ = true;  // Decide only (one decision at a time).
  mutable std::mutex mu_;
  std::vector<Seen> seen_;
};

// Runs a 0.5-s job with a 100-s estimate, asking for `gpus` (up to `max_gpus`), alone under
// a StatusWatcher on an engine named `name` with `slots` GPUs, to its end. Returns what the
// watcher saw while it ran (some of it more than 0.1 s in) and the job's final record.
void RunWatched(const std::string& name, int slots, int gpus, int max_gpus, uint64_t gpu_mask,
                double rate, std::vector<StatusWatcher::Seen>* seen, JobRecord* done) {
  auto watching = std::make_unique<StatusWatcher>(gpu_mask, rate);
  StatusWatcher* policy = watching.get();
  std::unique_ptr<Engine> engine = StartEngine(name, slots, std::move(watching));
  ASSERT_NE(engine, nullptr);
  JobRecord job;
  job.command = {"sleep", "0.5"};
  job.gpus = gpus;
  job.max_gpus = max_gpus;
  job.duration_s = 100;
  job.working_dir = ::testing::TempDir();
  Result<JobId> id = engine->Submit(job);
  ASSERT_TRUE(id.ok()) << id.status().message();
  ASSERT_TRUE(WaitUntil([&] { return AllIn(*engine, {*id}, RunState::kSucceeded); }, 20));
  engine->Stop();
  *seen = policy->seen();
  ASSERT_FALSE(seen->empty());
  bool some_progress = false;
  for (const StatusWatcher::Seen& s : *seen) some_progress = some_progress || s.executed_s > 0.1;
  EXPECT_TRUE(some_progress);
  Result<JobRecord> record = engine->Get(*id);
  ASSERT_TRUE(record.ok());
  *done = *record;
}

// A running job's remaining work counts its rate, as the simulator's does: at rate 0.5 a
// job with a 100 s estimate has 100 - 0.5 x executed_s seconds of solo work left.
TEST(RuntimeEngine, RemainingWorkOfARunningJobCountsItsRate) {
  std::vector<StatusWatcher::Seen> seen;
  JobRecord done;
  ASSERT_NO_FATAL_FAILURE(RunWatched("half_speed", 1, 1, 0, 0b1, 0.5, &seen, &done));
  for (const StatusWatcher::Seen& s : seen) {
    EXPECT_NEAR(s.remaining_s, 100 - 0.5 * s.executed_s, 1e-6) << "executed " << s.executed_s;
    EXPECT_TRUE(s.placement_iff_running) << "executed " << s.executed_s;
  }
  EXPECT_NEAR(done.work_done_s, 0.5 * done.executed_s, 1e-9);
}

// Attained service is the simulator's (schedkit/attained.h): an elastic job that asked for
// 1 GPU and runs on 3 attains 3 GPU-seconds per second, while it runs and once its run is
// booked; the GPU-seconds beyond its request are stored with the job.
TEST(RuntimeEngine, AttainedServiceOfAGrownElasticJobCountsEveryGpuItHolds) {
  std::vector<StatusWatcher::Seen> seen;
  JobRecord done;
  ASSERT_NO_FATAL_FAILURE(RunWatched("grown_attained", 4, 1, 3, 0b111, 1.0, &seen, &done));
  for (const StatusWatcher::Seen& s : seen) {
    EXPECT_NEAR(s.attained_gpu_s, 3 * s.executed_s, 1e-6) << "executed " << s.executed_s;
  }
  EXPECT_GT(done.executed_s, 0.4);
  EXPECT_NEAR(done.grown_gpu_s, 2 * done.executed_s, 1e-9);
  // The store keeps it.
  Result<std::unique_ptr<Store>> store =
      Store::Open(::testing::TempDir() + "/runtime_engine_grown_attained/schedkit.db");
  ASSERT_TRUE(store.ok()) << store.status().message();
  Result<std::vector<JobRecord>> jobs = (*store)->LoadAll();
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ(jobs->front().grown_gpu_s, done.grown_gpu_s);
}

// A placement the store cannot read (neither the one format nor the old "node:mask" one)
// fails the load with one line naming the store, the job and the field.
TEST(RuntimeStore, AnUnreadablePlacementFailsTheLoadNamingTheJob) {
  const std::string path = ::testing::TempDir() + "/runtime_store_bad_placement.db";
  std::filesystem::remove(path);
  {
    Result<std::unique_ptr<Store>> store = Store::Open(path);
    ASSERT_TRUE(store.ok()) << store.status().message();
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "INSERT INTO jobs (id, command, shell, gpus, cpus, mem_gb, duration_s, "
                         "user, vc, name, checkpoint_dir, working_dir, priority, submit_time, "
                         "state, first_start_time, last_start_time, finish_time, executed_s, "
                         "restart_count, preemptions, placement, backend_id, exit_code, message) "
                         "VALUES (4, '[\"true\"]', 0, 1, 0, 0, 0, 'u', '', '', '', '', 0, 5, "
                         "'RUNNING', 6, 6, 0, 0, 0, 0, 'gpu0', '1:1', 0, '');",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  Result<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  Result<std::vector<JobRecord>> jobs = (*store)->LoadAll();
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.status().message(),
            path +
                ": job 4: field 'placement': placement 'gpu0': share 'gpu0' is not "
                "'<node>:<gpus>'");
}

// A store written before co-location existed (no run_group, rate, ... columns) opens, gets
// the new columns with their defaults, and keeps its jobs.
TEST(RuntimeStore, AddsTheColumnsAnOlderStoreLacks) {
  const std::string path = ::testing::TempDir() + "/runtime_store_old.db";
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* kFirstRelease =
      "CREATE TABLE jobs (id INTEGER PRIMARY KEY AUTOINCREMENT, command TEXT NOT NULL, "
      "shell INTEGER NOT NULL, gpus INTEGER NOT NULL, cpus INTEGER NOT NULL, mem_gb REAL NOT "
      "NULL, duration_s REAL NOT NULL, user TEXT NOT NULL, vc TEXT NOT NULL, name TEXT NOT NULL, "
      "checkpoint_dir TEXT NOT NULL, working_dir TEXT NOT NULL, priority INTEGER NOT NULL, "
      "submit_time REAL NOT NULL, state TEXT NOT NULL, first_start_time REAL NOT NULL, "
      "last_start_time REAL NOT NULL, finish_time REAL NOT NULL, executed_s REAL NOT NULL, "
      "restart_count INTEGER NOT NULL, preemptions INTEGER NOT NULL, placement TEXT NOT NULL, "
      "backend_id TEXT NOT NULL, exit_code INTEGER NOT NULL, message TEXT NOT NULL);"
      "INSERT INTO jobs VALUES (1, '[\"true\"]', 0, 1, 0, 0, 0, 'u', '', '', '', '', 0, 5, "
      "'RUNNING', 6, 6, 0, 0, 0, 0, '0:1', '1:1', 0, '');";
  ASSERT_EQ(sqlite3_exec(db, kFirstRelease, nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  Result<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  Result<std::vector<JobRecord>> jobs = (*store)->LoadAll();
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 1u);
  const JobRecord& j = jobs->front();
  EXPECT_EQ(j.placement, "n0:0");  // The old "node:gpu_mask" text, read as the one format.
  EXPECT_EQ(j.group, 0);  // Re-adopted as running alone.
  EXPECT_EQ(j.group_size, 1);
  EXPECT_EQ(j.rate, 1);
  EXPECT_FALSE(j.guest);
  EXPECT_EQ(j.max_gpus, 0);  // Rigid, as every job was before elastic jobs.
  EXPECT_EQ(j.gpu_milli, kMilliPerGpu);  // Whole GPUs, as every job was before GPU shares.
  EXPECT_EQ(j.grown_gpu_s, 0);  // Never grown.
  EXPECT_TRUE(j.type_speeds.empty());  // The same speed on every type, as before GPU types.
  EXPECT_EQ(j.time_limit_s, 0);
  JobRecord again = j;
  again.group = 3;
  again.rate = 0.5;
  ASSERT_TRUE((*store)->Update(again, "started", 7).ok());
  store = Store::Open(path);  // Reopening adds nothing twice.
  ASSERT_TRUE(store.ok()) << store.status().message();
  jobs = (*store)->LoadAll();
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  EXPECT_EQ(jobs->front().group, 3);
  EXPECT_EQ(jobs->front().rate, 0.5);
}

// Records whether the policy it wraps ever co-locates (a group or a guest).
class ColocationWatcher : public Policy {
 public:
  explicit ColocationWatcher(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  std::string_view Name() const override { return inner_->Name(); }
  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    inner_->Decide(view, events, out);
    for (const StartDecision& s : out->start) colocated_ = colocated_ || s.group != 0 || s.guest;
  }
  bool colocated() const { return colocated_; }

 private:
  std::unique_ptr<Policy> inner_;
  std::atomic<bool> colocated_{false};
};

// What a backend that books GPUs per job (Slurm) answers; only its answers are used.
class ExclusiveBackend final : public Backend {
 public:
  std::string Name() const override { return "exclusive"; }
  const ClusterSpec& Cluster() const override { return cluster_; }
  const std::vector<std::string>& NodeNames() const override { return names_; }
  bool SharesGpus() const override { return false; }
  Result<std::string> Start(const JobRecord&, const Placement&) override { return Unused(); }
  Status Launch(const JobRecord&) override { return Unused(); }
  Status Preempt(const JobRecord&) override { return Unused(); }
  Status Cancel(const JobRecord&) override { return Unused(); }
  std::vector<JobExit> Poll(const std::vector<const JobRecord*>&) override { return {}; }
  Liveness Adopt(const JobRecord&, JobExit*) override { return Liveness::kLost; }

 private:
  static Status Unused() { return Status::Internal("not used by this test"); }
  ClusterSpec cluster_;
  std::vector<std::string> names_;
};

// A share of one GPU needs a backend on which jobs share GPUs: on one that books GPUs whole
// (Slurm) the submit is refused, naming the field, and nothing is stored.
TEST(RuntimeEngine, AShareOfOneGpuIsRefusedOnABackendThatBooksGpusWhole) {
  const std::string dir = ::testing::TempDir() + "/runtime_engine_share_exclusive";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  RuntimeOptions options;
  options.state_dir = dir;
  Result<std::unique_ptr<Store>> store = Store::Open(dir + "/schedkit.db");
  ASSERT_TRUE(store.ok()) << store.status().message();
  Result<std::unique_ptr<Engine>> engine =
      Engine::Start(options, std::move(store).value(), std::make_unique<ExclusiveBackend>(),
                    Builtin("fifo"));
  ASSERT_TRUE(engine.ok()) << engine.status().message();
  JobRecord job;
  job.command = {"true"};
  job.gpus = 1;
  job.gpu_milli = 500;
  Result<JobId> id = (*engine)->Submit(job);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().message(),
            "gpu_milli: 500 asks for a share of one GPU, but backend 'exclusive' books GPUs whole");
  job.gpu_milli = kMilliPerGpu;  // Whole GPUs are booked as ever.
  EXPECT_TRUE((*engine)->Submit(job).ok());
}

// Every registered policy either runs a few real short jobs (of 1 and 2 GPUs, with
// estimates, priorities and stage profiles) to completion on the runtime's local backend,
// or is refused at `serve` time with a reason. A policy that co-locates is refused on a
// backend that books GPUs exclusively, and is known to PolicyColocates.
class RuntimePolicies : public ::testing::TestWithParam<std::string> {};

TEST_P(RuntimePolicies, EveryPolicyRunsOrIsRefused) {
  const std::string& name = GetParam();
  const Status exclusive = CheckPolicyRunsOn(name, ExclusiveBackend());
  EXPECT_EQ(exclusive.ok(), !PolicyColocates(name)) << exclusive.message();
  if (!exclusive.ok()) EXPECT_NE(exclusive.message().find(name), std::string::npos);
  RuntimeOptions local_options;
  local_options.gpus = 2;
  Result<std::unique_ptr<Backend>> local = MakeLocalBackend(local_options);
  ASSERT_TRUE(local.ok());
  if (Status st = CheckPolicyRunsOn(name, **local); !st.ok()) {
    EXPECT_FALSE(st.message().empty());
    GTEST_SKIP() << "refused: " << st.message();
  }
  auto watcher = std::make_unique<ColocationWatcher>(Builtin(name));
  ColocationWatcher* watch = watcher.get();
  std::string dir_name = name;
  std::replace(dir_name.begin(), dir_name.end(), '-', '_');
  std::unique_ptr<Engine> engine = StartEngine("policy_" + dir_name, 2, std::move(watcher));
  ASSERT_NE(engine, nullptr);
  // Queued on a drained node, no job starts, not even under a policy that rebuilds its
  // schedule from an empty cluster (ClusterView::Capacity); undrained, all run.
  ASSERT_TRUE(engine->SetDrained("local", true).ok());
  std::vector<JobId> jobs;
  for (int i = 0; i < 4; ++i) {
    JobRecord job;
    job.command = {"sleep", "0.2"};
    job.gpus = i == 1 ? 2 : 1;
    job.duration_s = 0.2 * (4 - i);
    job.priority = i % 2;
    job.iteration_time_s = 0.1;
    job.stage_times_s = i % 2 == 0 ? StageTimes{0.06, 0.03, 0.01} : StageTimes{0.01, 0.08, 0.01};
    job.working_dir = ::testing::TempDir();
    Result<JobId> id = engine->Submit(job);
    ASSERT_TRUE(id.ok()) << id.status().message();
    jobs.push_back(*id);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // The policy sees them all.
  EXPECT_TRUE(AllIn(*engine, jobs, RunState::kPending)) << name << " started on a drained node";
  ASSERT_TRUE(engine->SetDrained("local", false).ok());
  EXPECT_TRUE(WaitUntil([&] { return AllIn(*engine, jobs, RunState::kSucceeded); }, 60))
      << name << " left jobs unfinished";
  engine->Stop();
  if (watch->colocated()) EXPECT_TRUE(PolicyColocates(name)) << name << " co-locates";
}

std::vector<std::string> RegisteredPolicies() {
  std::vector<std::string> names;
  for (const auto& entry : BuiltinRegistries().policies.entries()) names.push_back(entry.name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Registry, RuntimePolicies, ::testing::ValuesIn(RegisteredPolicies()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace schedkit::runtime
