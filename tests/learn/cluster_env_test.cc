// The GPU-cluster learning environment (schedkit/cluster_env.h): a hand-computed episode, the
// summed reward against an independent simulator run, the observation contract, determinism by
// seed, and illegal actions that change nothing.
#include "schedkit/cluster_env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <set>

#include "schedkit/env_spaces.h"
#include "schedkit/registry.h"
#include "schedkit/simulator.h"
#include "test_files.h"

namespace schedkit {
namespace {

const char kHeader[] =
    "job_id,submit_s,gpus,duration_s,iterations,iteration_time_s,model,batch_size,stage_io_s,"
    "stage_gpu_s,stage_net_s,cpus,mem_gb,user,vc,priority\n";

std::string TinyCluster() { return DataDir() + "/clusters/tiny.csv"; }  // 2 nodes x 4 GPUs.

std::unique_ptr<Environment> MakeEnv(const ClusterEnvConfig& config) {
  Result<std::unique_ptr<Environment>> env = MakeClusterEnvironment(config);
  EXPECT_TRUE(env.ok()) << env.status().message();
  return env.ok() ? std::move(env).value() : nullptr;
}

const std::vector<int64_t>& Ints(const Observation& o, const std::string& field) {
  return std::get<std::vector<int64_t>>(o.at(field).values);
}
const std::vector<double>& Doubles(const Observation& o, const std::string& field) {
  return std::get<std::vector<double>>(o.at(field).values);
}

int64_t FirstLegal(const Observation& o) {
  const std::vector<int64_t>& mask = Ints(o, "action_mask");
  auto it = std::find(mask.begin(), mask.end(), 1);
  return it == mask.end() ? -1 : it - mask.begin();
}

// Runs an episode with `choose`; returns the summed reward and fills the last info.
template <typename Choose>
double Episode(Environment& env, uint64_t seed, Choose choose, StepResult* last = nullptr) {
  Observation obs = env.Reset(seed);
  double total = 0;
  for (int guard = 0; guard < 1000000; ++guard) {
    Result<StepResult> r = env.Step({choose(obs)});
    EXPECT_TRUE(r.ok()) << r.status().message();
    if (!r.ok()) break;
    total += r->reward;
    obs = r->observation;
    if (r->terminated) {
      if (last != nullptr) *last = *r;
      break;
    }
  }
  return total;
}

TEST(ClusterEnvTest, HandComputedEpisode) {
  // Job 0 (4 GPUs, 100 s) at 0; job 1 (8 GPUs, 50 s) at 10 waits for job 0.
  ClusterEnvConfig config;
  config.trace_path = testing::WriteTempFile(
      "env_two_jobs.csv",
      std::string(kHeader) + "0,0,4,100,,,m,1,,,,,,u,,0\n" + "1,10,8,50,,,m,1,,,,,,u,,0\n");
  config.cluster_path = TinyCluster();
  config.max_queued = 2;
  config.max_running = 2;
  auto env = MakeEnv(config);
  Observation obs = env->Reset(0);
  EXPECT_EQ(Ints(obs, "queued_ids"), (std::vector<int64_t>{0, -1}));
  EXPECT_EQ(Ints(obs, "action_mask"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(Ints(obs, "can_wait"), std::vector<int64_t>{1});  // Job 1 is still to arrive.
  EXPECT_EQ(Doubles(obs, "queued"), (std::vector<double>{4, 0, 100, 0, 0, 0}));

  Result<StepResult> r = env->Step({0});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->reward, -(10.0 * 1 + 90.0 * 2));  // Job 1 fits when job 0 ends at 100.
  EXPECT_DOUBLE_EQ(Doubles(r->observation, "wall_time")[0], 100);
  EXPECT_EQ(Ints(r->observation, "queued_ids"), (std::vector<int64_t>{1, -1}));
  EXPECT_DOUBLE_EQ(Doubles(r->observation, "queued")[1], 90);  // Waited 90 s.
  EXPECT_FALSE(r->terminated);

  r = env->Step({0});
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->reward, -50);
  EXPECT_TRUE(r->terminated);
  EXPECT_DOUBLE_EQ(r->info.at("sum_jct_s"), 100 + 140);
  EXPECT_DOUBLE_EQ(r->info.at("avg_jct_s"), 120);
  EXPECT_FALSE(env->Step({-1}).ok());  // The episode has ended.
}

TEST(ClusterEnvTest, PreemptionHandComputedEpisode) {
  // Job 0 (8 GPUs, 100 s) at 0; job 1 (4 GPUs, 10 s) at 10. Q = R = 2, so action 2 stops
  // running row 0.
  ClusterEnvConfig config;
  config.trace_path = testing::WriteTempFile(
      "env_preempt.csv",
      std::string(kHeader) + "0,0,8,100,,,m,1,,,,,,u,,0\n" + "1,10,4,10,,,m,1,,,,,,u,,0\n");
  config.cluster_path = TinyCluster();
  config.max_queued = 2;
  config.max_running = 2;
  auto plain = MakeEnv(config);
  plain->Reset(0);
  ASSERT_TRUE(plain->Step({0}).ok());  // Without preemption nothing happens until job 0 ends,
  EXPECT_FALSE(plain->Step({2}).ok());  // and a preemption action is out of range.

  config.preemption = true;
  auto env = MakeEnv(config);
  Observation obs = env->Reset(0);
  EXPECT_EQ(Ints(obs, "preempt_mask"), (std::vector<int64_t>{0, 0}));  // Nothing runs yet.
  // Start job 0. At 10 job 1 arrives and cannot fit, but job 0 could be stopped: a decision.
  Result<StepResult> r = env->Step({0});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->reward, -10);  // One job in the system for 10 s.
  EXPECT_DOUBLE_EQ(Doubles(r->observation, "wall_time")[0], 10);
  EXPECT_EQ(Ints(r->observation, "preempt_mask"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(Ints(r->observation, "action_mask"), (std::vector<int64_t>{0, 0}));
  // Stop job 0 (10 s done, 90 left): both queued now, both fit, still at 10.
  r = env->Step({2});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->reward, 0);
  EXPECT_EQ(Ints(r->observation, "queued_ids"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Ints(r->observation, "action_mask"), (std::vector<int64_t>{1, 1}));
  // Start job 1 (10 -> 20); job 0 waits while job 1 runs, so the agent is asked again at 10.
  r = env->Step({1});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->reward, 0);
  EXPECT_EQ(Ints(r->observation, "running_ids"), (std::vector<int64_t>{1, -1}));
  // Wait: job 1 ends at 20 with two jobs in the system meanwhile.
  r = env->Step({-1});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->reward, -20);
  // Job 0 resumes at 20 with 90 s left and ends at 110.
  r = env->Step({0});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_DOUBLE_EQ(r->reward, -90);
  ASSERT_TRUE(r->terminated);
  // The episode's summary: JCTs 110 and 10; slowdowns 1.1 and 1; one preemption.
  EXPECT_DOUBLE_EQ(r->info.at("sum_jct_s"), 120);
  EXPECT_DOUBLE_EQ(r->info.at("avg_jct_s"), 60);
  EXPECT_DOUBLE_EQ(r->info.at("jobs"), 2);
  EXPECT_DOUBLE_EQ(r->info.at("preemptions"), 1);
  EXPECT_DOUBLE_EQ(r->info.at("avg_slowdown"), (1.1 + 1) / 2);
  EXPECT_DOUBLE_EQ(r->info.at("makespan_s"), 110);
}

TEST(ClusterEnvTest, HiddenRowsAreReported) {
  // Three 8-GPU jobs at 0 with Q = 1: two stay hidden until the first ends, one until the
  // second ends.
  ClusterEnvConfig config;
  config.trace_path = testing::WriteTempFile(
      "env_hidden.csv", std::string(kHeader) + "0,0,8,10,,,m,1,,,,,,u,,0\n" +
                            "1,0,8,10,,,m,1,,,,,,u,,0\n" + "2,0,8,10,,,m,1,,,,,,u,,0\n");
  config.cluster_path = TinyCluster();
  config.max_queued = 1;
  auto env = MakeEnv(config);
  Observation obs = env->Reset(0);
  EXPECT_EQ(Ints(obs, "num_queued"), std::vector<int64_t>{3});
  std::vector<double> hidden;
  StepResult last;
  for (int step = 0; step < 3; ++step) {
    Result<StepResult> r = env->Step({0});
    ASSERT_TRUE(r.ok()) << r.status().message();
    hidden.push_back(r->info.at("queued_hidden"));
    last = *r;
  }
  // At the next decision point: jobs 1 and 2 queued at 10 (one hidden), job 2 alone at 20.
  EXPECT_EQ(hidden, (std::vector<double>{1, 0, 0}));
  ASSERT_TRUE(last.terminated);
  EXPECT_DOUBLE_EQ(last.info.at("steps_with_hidden_queue"), 2);  // The first two choices.
}

TEST(ClusterEnvTest, WaitingIsAStepToTheNextEvent) {
  ClusterEnvConfig config;
  config.trace_path =
      testing::WriteTempFile("env_wait.csv", std::string(kHeader) + "0,0,4,100,,,m,1,,,,,,u,,0\n" +
                                                 "1,30,2,10,,,m,1,,,,,,u,,0\n");
  config.cluster_path = TinyCluster();
  auto env = MakeEnv(config);
  env->Reset(0);
  Result<StepResult> r = env->Step({-1});  // Job 0 waits for job 1's arrival.
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->reward, -30);
  EXPECT_EQ(Ints(r->observation, "queued_ids")[1], 1);
  r = env->Step({1});  // The short job first: it ends at 40, job 0 at 130.
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->reward, 0);  // Job 0 still fits: same instant.
  r = env->Step({0});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->terminated);
  EXPECT_DOUBLE_EQ(r->info.at("sum_jct_s"), 130 + 10);
}

// Greedy backfilling in arrival order, as a plain policy on the simulator: the schedule that
// "always start the first legal queued row" gives when every queued job is visible.
class GreedyPolicy final : public Policy {
 public:
  explicit GreedyPolicy(std::unique_ptr<PlacementModule> placement)
      : placement_(std::move(placement)) {}
  std::string_view Name() const override { return "greedy"; }
  void Decide(const ClusterView& view, const EventBatch&, Decisions* out) override {
    ClusterState free = view.Resources();
    for (JobId id : view.PendingJobs()) {
      Placement p = placement_->Place(view.Spec(id), free);
      if (p.empty()) continue;
      free.Allocate(p);
      out->start.push_back(StartDecision{id, p});
    }
  }

 private:
  std::unique_ptr<PlacementModule> placement_;
};

class JctSum final : public SimulationObserver {
 public:
  void OnJobFinish(const JobSpec& job, Time now, Time, double, int, const Placement&) override {
    sum_s += now - job.submit_s;
  }
  double sum_s = 0;
};

TEST(ClusterEnvTest, SummedRewardIsMinusSumOfJctsOfTheSameScheduleOnTheSimulator) {
  ClusterEnvConfig config;
  config.generator.num_jobs = 150;
  config.generator.jobs_per_hour = 6;
  config.max_queued = 1000;  // Every queued job visible: the greedy schedule.
  auto env = MakeEnv(config);
  StepResult last;
  const double total = Episode(*env, 7, FirstLegal, &last);

  GeneratorConfig g = config.generator;
  g.seed = 7;
  Result<Trace> trace = GenerateTrace(g);
  ASSERT_TRUE(trace.ok());
  Result<ClusterSpec> cluster = LoadClusterSpec(DataDir() + "/clusters/muri_n8g8.csv");
  ASSERT_TRUE(cluster.ok());
  ModuleContext ctx;
  auto placement = BuiltinRegistries().placements.Find("yarn")->factory(ctx);
  ASSERT_TRUE(placement.ok());
  GreedyPolicy policy(std::move(placement).value());
  Simulator sim(&*trace, &*cluster, SimulatorOptions());
  JctSum jcts;
  sim.AddObserver(&jcts);
  ASSERT_TRUE(sim.Run(&policy).ok());
  ASSERT_EQ(sim.stats().unfinished, 0);

  EXPECT_NEAR(total, -jcts.sum_s, 1e-6 * jcts.sum_s);
  EXPECT_NEAR(last.info.at("sum_jct_s"), jcts.sum_s, 1e-6 * jcts.sum_s);
  EXPECT_EQ(last.info.at("jobs_finished"), 150);
}

TEST(ClusterEnvTest, ObservationsMatchTheDescribedSpaces) {
  Result<SpaceDoc> doc = DescribeEnvironment("cluster");
  ASSERT_TRUE(doc.ok());
  ClusterEnvConfig config;
  config.max_queued = 5;
  config.max_running = 7;
  auto env = MakeEnv(config);
  Observation obs = env->Reset(3);
  std::mt19937_64 rng(1);
  for (int step = 0; step < 300; ++step) {
    ASSERT_EQ(obs.size(), doc->observation.size());
    for (const FieldDoc& f : doc->observation) {
      ASSERT_EQ(obs.count(f.name), 1u) << f.name;
      const Tensor& t = obs.at(f.name);
      EXPECT_EQ(f.dtype == "int64", std::holds_alternative<std::vector<int64_t>>(t.values))
          << f.name;
      std::string shape = "[";
      for (size_t i = 0; i < t.shape.size(); ++i) {
        const int64_t d = t.shape[i];
        shape += (i ? ", " : "") + (d == 5 ? std::string("Q") : d == 7 ? "R" : std::to_string(d));
      }
      EXPECT_EQ(shape + "]", f.shape) << f.name;
    }
    // Masks: legal rows are real rows; ids are set exactly on real rows.
    const auto& qmask = Ints(obs, "queued_mask");
    const auto& amask = Ints(obs, "action_mask");
    const auto& qids = Ints(obs, "queued_ids");
    for (int i = 0; i < 5; ++i) {
      EXPECT_LE(amask[i], qmask[i]);
      EXPECT_EQ(qids[i] >= 0, qmask[i] == 1);
    }
    const int64_t real = std::count(qmask.begin(), qmask.end(), 1);
    EXPECT_EQ(real, std::min<int64_t>(5, Ints(obs, "num_queued")[0]));
    EXPECT_GE(Ints(obs, "free_gpus")[0], 0);
    std::vector<int64_t> legal;
    for (int i = 0; i < 5; ++i) {
      if (amask[i]) legal.push_back(i);
    }
    if (Ints(obs, "can_wait")[0]) legal.push_back(-1);
    ASSERT_FALSE(legal.empty());
    Result<StepResult> r = env->Step({legal[rng() % legal.size()]});
    ASSERT_TRUE(r.ok()) << r.status().message();
    obs = r->observation;
    if (r->terminated) obs = env->Reset(step);
  }
}

TEST(ClusterEnvTest, SameSeedSameEpisodeOtherSeedOtherEpisode) {
  ClusterEnvConfig config;
  auto env = MakeEnv(config);
  auto random_run = [&](uint64_t seed) {
    std::mt19937_64 rng(99);
    std::vector<double> rewards;
    Observation obs = env->Reset(seed);
    while (true) {
      std::vector<int64_t> legal;
      const auto& mask = Ints(obs, "action_mask");
      for (size_t i = 0; i < mask.size(); ++i) {
        if (mask[i]) legal.push_back(static_cast<int64_t>(i));
      }
      if (Ints(obs, "can_wait")[0]) legal.push_back(-1);
      Result<StepResult> r = env->Step({legal[rng() % legal.size()]});
      EXPECT_TRUE(r.ok());
      rewards.push_back(r->reward);
      obs = r->observation;
      if (r->terminated) break;
    }
    return rewards;
  };
  const std::vector<double> a = random_run(5);
  EXPECT_EQ(random_run(5), a);
  EXPECT_NE(random_run(6), a);
}

TEST(ClusterEnvTest, IllegalActionsAreInvalidArgumentsAndChangeNothing) {
  ClusterEnvConfig config;
  config.trace_path = testing::WriteTempFile(
      "env_illegal.csv",
      std::string(kHeader) + "0,0,8,100,,,m,1,,,,,,u,,0\n" + "1,0,4,10,,,m,1,,,,,,u,,0\n");
  config.cluster_path = TinyCluster();
  config.max_queued = 3;
  auto env = MakeEnv(config);
  EXPECT_EQ(env->Step({0}).status().code(), Status::Code::kInvalidArgument);  // Before Reset.
  Observation obs = env->Reset(0);
  ASSERT_TRUE(env->Step({0}).ok());  // Job 0 takes all 8 GPUs; job 1 waits.
  obs = env->Reset(0);
  // Nothing runs and nothing is to arrive: waiting is illegal.
  EXPECT_EQ(Ints(obs, "can_wait")[0], 0);
  for (const Action& bad : std::vector<Action>{{-1}, {2}, {3}, {-2}, {}, {0, 1}}) {
    Result<StepResult> r = env->Step(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  }
  Result<StepResult> r = env->Step({0});
  ASSERT_TRUE(r.ok());
  // Time did not move during the refused actions: job 1 waits 0..100 for job 0's GPUs.
  EXPECT_DOUBLE_EQ(r->reward, -200);
  r = env->Step({1});  // Row 1 is padding.
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  r = env->Step({0});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->terminated);
  EXPECT_DOUBLE_EQ(r->info.at("sum_jct_s"), 100 + 110);
}

TEST(ClusterEnvTest, MaskedRowIsRefused) {
  // Once job 0 holds half the GPUs, 8-GPU job 1's row is masked and starting it is refused.
  ClusterEnvConfig config;
  config.trace_path = testing::WriteTempFile(
      "env_masked.csv", std::string(kHeader) + "0,0,4,100,,,m,1,,,,,,u,,0\n" +
                            "1,0,8,10,,,m,1,,,,,,u,,0\n" + "2,0,4,10,,,m,1,,,,,,u,,0\n");
  config.cluster_path = TinyCluster();
  auto env = MakeEnv(config);
  env->Reset(0);
  Result<StepResult> r = env->Step({0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Ints(r->observation, "action_mask")[0], 0);  // Job 1 needs 8, 4 are free.
  EXPECT_EQ(Ints(r->observation, "action_mask")[1], 1);
  Result<StepResult> bad = env->Step({0});
  EXPECT_EQ(bad.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("does not fit"), std::string::npos);
}

TEST(ClusterEnvTest, BadConfigsNameTheProblem) {
  ClusterEnvConfig config;
  config.max_queued = 0;
  EXPECT_NE(MakeClusterEnvironment(config).status().message().find("max_queued"),
            std::string::npos);
  config = ClusterEnvConfig();
  config.placement = "nowhere";
  EXPECT_NE(MakeClusterEnvironment(config).status().message().find("nowhere"), std::string::npos);
  config = ClusterEnvConfig();
  config.cluster_path = TinyCluster();
  config.trace_path = testing::WriteTempFile("env_too_big.csv",
                                             std::string(kHeader) + "0,0,16,100,,,m,1,,,,,,u,,0\n");
  const std::string msg = MakeClusterEnvironment(config).status().message();
  EXPECT_NE(msg.find("env_too_big.csv"), std::string::npos) << msg;
  EXPECT_NE(msg.find("job 0"), std::string::npos) << msg;
  config.trace_path = testing::WriteTempFile("env_bad.csv", std::string(kHeader) + "0,0,x\n");
  EXPECT_NE(MakeClusterEnvironment(config).status().message().find("env_bad.csv:2"),
            std::string::npos);
}

}  // namespace
}  // namespace schedkit
