// Elastic jobs (schedkit/scaling.h): a job may run on up to max_gpus GPUs at the speed the
// run's scaling model gives; the engine refuses other counts. Driven through the step
// interface so each decision is explicit. Curve used throughout: step(w) = 1 + 0.25 (w - 1)
// s, so throughput w / step(w) is 1, 1.6, 2, 16/7 on 1..4 GPUs.
#include <gtest/gtest.h>

#include <memory>

#include "schedkit/run.h"
#include "schedkit/scaling.h"
#include "schedkit/simulator.h"
#include "schedkit/trace.h"
#include "test_files.h"

namespace schedkit::testing {
namespace {

std::shared_ptr<const ScalingModel> Curve() {
  return std::make_shared<ScalingModel>(StepTimeCurve{1, 0.25}, "test");
}

Placement Gpus(uint64_t mask) { return Placement{{NodeShare{.node = 0, .gpu_mask = mask}}}; }

struct Fixture {
  explicit Fixture(std::vector<JobSpec> jobs, std::shared_ptr<const ScalingModel> scaling = Curve()) {
    trace.jobs = std::move(jobs);
    SimulatorOptions options;
    options.scaling = std::move(scaling);
    sim = std::make_unique<Simulator>(&trace, &cluster, std::move(options));
  }
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 4, 0, 0);
  Trace trace;
  std::unique_ptr<Simulator> sim;
  EventBatch batch;
};

TEST(ScalingModel, SpeedupIsThroughputRelativeToTheRequestedCount) {
  const ScalingModel m(StepTimeCurve{1, 0.25});
  const JobSpec one = JobBuilder(1).Gpus(1).MaxGpus(4).Build();
  const JobSpec two = JobBuilder(2).Gpus(2).MaxGpus(4).Build();
  EXPECT_EQ(m.Speedup(one, 1), 1.0);
  EXPECT_DOUBLE_EQ(m.Speedup(one, 2), 1.6);       // 2 / 1.25.
  EXPECT_DOUBLE_EQ(m.Speedup(one, 4), 16.0 / 7);  // 4 / 1.75.
  EXPECT_DOUBLE_EQ(m.Speedup(two, 4), 10.0 / 7);  // (16/7) / 1.6.
}

TEST(ScalingModel, ShippedTableHasEveryMuriModelAndADefault) {
  Result<std::shared_ptr<const ScalingModel>> m = ShippedScalingModel();
  ASSERT_TRUE(m.ok()) << m.status().message();
  // data/optimus/speedup.csv, fitted by scripts/fit_speedup.py: vgg16 168.4741 + 6.4940 (w-1) ms.
  const StepTimeCurve& vgg = (*m)->CurveFor("vgg16");
  EXPECT_DOUBLE_EQ(vgg.alpha_s, 0.1684741);
  EXPECT_DOUBLE_EQ(vgg.beta_s, 0.0064940);
  const StepTimeCurve& other = (*m)->CurveFor("no-such-model");
  EXPECT_DOUBLE_EQ(other.alpha_s, 1.0);
  // More GPUs never slow a job down under the shipped table (optimus relies on it).
  for (const char* model : {"a2c", "bert", "dqn", "gpt2", "resnet18", "shufflenet_v2_x1_0",
                            "vgg16", "vgg19", "unknown"}) {
    JobSpec j = JobBuilder(1).Gpus(1).MaxGpus(64).Model(model).Build();
    for (int n = 2; n <= 64; ++n) EXPECT_GT((*m)->Speedup(j, n), (*m)->Speedup(j, n - 1)) << model;
  }
}

TEST(ScalingModel, LoadRefusesATableWithoutDefaultOrWithABadValue) {
  const std::string no_default = WriteTempFile("nodefault.csv", "model,alpha_ms,beta_ms\nvgg16,1,0\n");
  Result<ScalingModel> a = ScalingModel::Load(no_default);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("'*'"), std::string::npos) << a.status().message();
  const std::string negative = WriteTempFile("negative.csv", "model,alpha_ms,beta_ms\n*,1,-2\n");
  Result<ScalingModel> b = ScalingModel::Load(negative);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find(":2:"), std::string::npos) << b.status().message();
  EXPECT_NE(b.status().message().find("beta_ms"), std::string::npos) << b.status().message();
}

TEST(Elastic, GrownJobRunsAtTheModelsSpeed) {
  // 100 solo seconds on 1 GPU, started on 4 at t=0: speed 16/7, done at 100 x 7/16 = 43.75.
  Fixture f({JobBuilder(1).Gpus(1).MaxGpus(4).Duration(100).Build()});
  ASSERT_TRUE(f.sim->NextDecisionPoint(&f.batch));
  Decisions d;
  d.start = {{1, Gpus(0b1111)}};
  d.wake_at = 7;
  ASSERT_TRUE(f.sim->Apply(d).ok());
  ASSERT_TRUE(f.sim->NextDecisionPoint(&f.batch));  // The wake-up at 7.
  const JobStatus s = f.sim->view().Status(1);
  EXPECT_DOUBLE_EQ(s.remaining_s, 100 - 7 * 16.0 / 7);  // Solo seconds on its 1 GPU: 84.
  EXPECT_DOUBLE_EQ(s.attained_gpu_s, 7 * 4);            // GPUs it holds, not asks for.
  ASSERT_TRUE(f.sim->Apply(Decisions()).ok());
  ASSERT_TRUE(f.sim->NextDecisionPoint(&f.batch));
  EXPECT_EQ(f.batch.finished, std::vector<JobId>{1});
  EXPECT_DOUBLE_EQ(f.sim->view().Now(), 43.75);
}

TEST(Elastic, ShrinksBackWhenRestartedOnFewerGpusOrAfterPreemption) {
  // J1 (2..4 GPUs, 100 solo s on 2) runs on 4 from 0 (speed (16/7)/1.6 = 10/7); at 14 it
  // has 80 left and moves to 2 GPUs (speed 1); at 24 (70 left) it is preempted, restarts
  // at 30 on 2 GPUs again and ends at 30 + 70 = 100.
  Fixture f({JobBuilder(1).Gpus(2).MaxGpus(4).Duration(100).Build()});
  ASSERT_TRUE(f.sim->NextDecisionPoint(&f.batch));
  Decisions d;
  d.start = {{1, Gpus(0b1111)}};
  d.wake_at = 14;
  ASSERT_TRUE(f.sim->Apply(d).ok());
  ASSERT_TRUE(f.sim->NextDecisionPoint(&f.batch));
  EXPECT_DOUBLE_EQ(f.sim->view().Status(1).remaining_s, 80);
  d = Decisions();
  d.start = {{1, Gpus(0b0011)}};  // A move: restart on 2 GPUs.
  d.wake_at = 24;
  ASSERT_TRUE(f.sim->Apply(d).ok());
  EXPECT_EQ(f.sim->view().Resources().total_free_gpus(), 2);
  ASSERT_TRUE(f.sim->NextDecisionPoint(&f.batch));
  EXPECT_DOUBLE_EQ(f.sim->view().Status(1).remaining_s, 70);
  d = Decisions();
  d.preempt = {1};
  d.wake_at = 30;
  ASSERT_TRUE(f.sim->Apply(d).ok());
  ASSERT_TRUE(f.sim->NextDecisionPoint(&f.batch));
  d = Decisions();
  d.start = {{1, Gpus(0b1100)}};
  ASSERT_TRUE(f.sim->Apply(d).ok());
  ASSERT_TRUE(f.sim->NextDecisionPoint(&f.batch));
  EXPECT_EQ(f.batch.finished, std::vector<JobId>{1});
  EXPECT_DOUBLE_EQ(f.sim->view().Now(), 100);
  EXPECT_DOUBLE_EQ(f.sim->view().Status(1).attained_gpu_s, 14 * 4 + 10 * 2 + 70 * 2);
}

TEST(Elastic, EngineRefusesCountsOutsideTheJobsRange) {
  Fixture f({JobBuilder(1).Gpus(1).Duration(10).Build(),              // Rigid.
             JobBuilder(2).Gpus(2).MaxGpus(3).Duration(10).Build()});  // 2..3.
  ASSERT_TRUE(f.sim->NextDecisionPoint(&f.batch));
  Decisions rigid;
  rigid.start = {{1, Gpus(0b11)}};
  Status st = f.sim->Apply(rigid);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("starts job 1 on 2 GPUs; it asks for 1"), std::string::npos)
      << st.message();
  for (uint64_t mask : {uint64_t{0b1}, uint64_t{0b1111}}) {
    Decisions elastic;
    elastic.start = {{2, Gpus(mask)}};
    st = f.sim->Apply(elastic);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("elastic job 2"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("runs on 2 to 3"), std::string::npos) << st.message();
  }
  Decisions grouped;  // Co-located, an elastic job runs on what it asks for.
  grouped.start = {{2, Gpus(0b111), 1.0, /*group=*/7}};
  EXPECT_FALSE(f.sim->Apply(grouped).ok());
  Decisions ok;
  ok.start = {{1, Gpus(0b1)}, {2, Gpus(0b1110)}};
  EXPECT_TRUE(f.sim->Apply(ok).ok());
}

TEST(Elastic, RunWithoutAScalingModelIsRefused) {
  Trace trace;
  trace.jobs = {JobBuilder(1).Gpus(1).MaxGpus(2).Duration(10).Build()};
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 4, 0, 0);
  Simulator sim(&trace, &cluster, SimulatorOptions());
  PolicyRequest request;
  request.policy = "fifo";
  auto policy = MakePolicy(request);
  ASSERT_TRUE(policy.ok());
  const Status st = sim.Run(policy->get());
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("no scaling model"), std::string::npos) << st.message();
}

TEST(Elastic, RigidRunsAreUntouchedByAScalingModel) {
  // The same rigid 3-job run with and without a scaling model: identical summaries.
  Trace trace;
  trace.jobs = {JobBuilder(1).Gpus(2).Duration(100).Build(),
                JobBuilder(2).Gpus(4).Submit(5).Duration(30).Build(),
                JobBuilder(3).Gpus(1).Submit(9).Duration(20).Build()};
  const ClusterSpec cluster = ClusterSpec::Uniform(1, 1, 4, 0, 0);
  PolicyRequest request;
  request.policy = "optimus";
  SimulatorOptions with;
  with.scaling = Curve();
  Result<RunOutput> a = RunSimulation(trace, cluster, request, SimulatorOptions());
  Result<RunOutput> b = RunSimulation(trace, cluster, request, with);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->summary.avg_jct_s, b->summary.avg_jct_s);
  EXPECT_EQ(a->summary.makespan_s, b->summary.makespan_s);
}

}  // namespace
}  // namespace schedkit::testing
