// Heterogeneous GPU types (schedkit/throughput.h, docs/heterogeneous.md): the throughput
// model, progress that follows the GPU type, and placements that stay within one type.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schedkit/registry.h"
#include "schedkit/run.h"
#include "schedkit/simulator.h"
#include "schedkit/throughput.h"
#include "schedkit/trace.h"
#include "gavel_test_util.h"
#include "sim_test_util.h"
#include "workload/workload_test_util.h"

namespace schedkit::testing {
namespace {

std::string TablePath() {
  return std::string(SCHEDKIT_SHARED_DIR) + "/data/gavel/simulation_throughputs.json";
}

const ThroughputTable& Table() {
  static const ThroughputTable table = [] {
    Result<ThroughputTable> t = ThroughputTable::LoadGavel(TablePath());
    EXPECT_TRUE(t.ok()) << t.status().message();
    return std::move(t).value();
  }();
  return table;
}

// Gavel's measurements of ResNet-50 (batch size 64) on one GPU, steps/s.
constexpr double kResNet50V100 = 4.394774823323071;
constexpr double kResNet50K80 = 0.6190282202246573;

ClusterSpec TypedCluster(std::vector<std::pair<std::string, int>> nodes, int gpus_per_node) {
  ClusterSpec spec;
  for (const auto& [type, count] : nodes) {
    for (int i = 0; i < count; ++i) {
      NodeSpec n;
      n.gpus = gpus_per_node;
      n.gpu_type = type;
      spec.nodes.push_back(n);
    }
  }
  return spec;
}

// A ResNet-50 (batch size 64) job of `steps` V100-referenced steps, speeds from the table.
JobSpec ResNet50(JobId id, int64_t steps, Time submit = 0) {
  JobSpec j = JobBuilder(id).Submit(submit).Iterations(steps, 1 / kResNet50V100).Build();
  j.profile.model = "ResNet-50";
  j.profile.batch_size = 64;
  j.profile.type_speeds = *Table().Speeds("ResNet-50 (batch size 64)", 1, "v100");
  return j;
}

TEST(ThroughputTable, ReadsIsolatedAndPairThroughputs) {
  EXPECT_EQ(*Table().Isolated("v100", "ResNet-50 (batch size 64)", 1), kResNet50V100);
  EXPECT_EQ(*Table().Isolated("k80", "ResNet-50 (batch size 64)", 1), kResNet50K80);
  // The pair entry of ResNet-50 beside ResNet-18 (both batch 64, one GPU) on a V100.
  auto pair = Table().Colocated("v100", "ResNet-50 (batch size 64)", 1,
                                "ResNet-18 (batch size 64)", 1);
  ASSERT_TRUE(pair.ok());
  EXPECT_EQ((*pair)[0], 3.553213803806571);
  EXPECT_EQ((*pair)[1], 12.438704307337668);
  std::vector<std::string> types = Table().GpuTypes();
  EXPECT_EQ(types, (std::vector<std::string>{"k80", "k80_unconsolidated", "p100",
                                             "p100_unconsolidated", "v100",
                                             "v100_unconsolidated"}));
}

TEST(ThroughputTable, SpeedsAreThroughputsOverTheReferenceType) {
  auto speeds = Table().Speeds("ResNet-50 (batch size 64)", 1, "v100");
  ASSERT_TRUE(speeds.ok());
  ASSERT_EQ(speeds->size(), 6u);
  EXPECT_EQ((*speeds)[0].gpu_type, "k80");
  EXPECT_EQ((*speeds)[0].speed, kResNet50K80 / kResNet50V100);
  EXPECT_EQ((*speeds)[4].gpu_type, "v100");
  EXPECT_EQ((*speeds)[4].speed, 1.0);  // x / x: exactly the solo speed.
  // The legacy traces' 16-GPU jobs use the largest measured scale factor below (8).
  EXPECT_EQ(*Table().MeasuredScaleFactor("v100", "ResNet-18 (batch size 64)", 16), 8);
}

TEST(ThroughputTable, ErrorsNameWhatIsMissing) {
  EXPECT_EQ(Table().Isolated("h100", "A3C", 1).status().message(),
            TablePath() + ": no throughput for ('A3C', 1) on GPU type 'h100'");
  EXPECT_EQ(Table().MeasuredScaleFactor("v100", "Foo", 1).status().message(),
            TablePath() + ": no throughput for 'Foo' on GPU type 'v100' at or below scale factor 1");
  EXPECT_EQ(Table().Speeds("A3C", 1, "h100").status().message(), TablePath() + ": no GPU type 'h100'");
  EXPECT_EQ(Table()
                .Colocated("v100", "A3C", 1, "ResNet-50 (batch size 64)", 4)
                .status()
                .message(),
            TablePath() +
                ": no co-located throughput for ('A3C', 1) beside ('ResNet-50 (batch size 64)', "
                "4) on GPU type 'v100'");
  TempFile bad("{\"v100\": {\"('A3C', one)\": {\"null\": 1}}}", "t.json");
  EXPECT_EQ(ThroughputTable::LoadGavel(bad.path()).status().message(),
            bad.path() + ": v100: key '('A3C', one)' is not \"('JOB TYPE', SCALE_FACTOR)\"");
  TempFile pair("{\"v100\": {\"('A3C', 1)\": {\"null\": 1, \"('A3C', 1)\": [1]}}}", "t.json");
  EXPECT_EQ(ThroughputTable::LoadGavel(pair.path()).status().message(),
            pair.path() + ": v100: key '('A3C', 1)': pair '('A3C', 1)' is not [own steps/s, "
                          "other steps/s]");
}

TEST(ThroughputModel, SpeedOnFollowsTheJobsList) {
  const JobSpec agnostic = JobBuilder(1).Duration(10).Build();
  EXPECT_EQ(SpeedOn(agnostic, "k80"), 1);  // No list: solo speed everywhere.
  const JobSpec typed = JobBuilder(2).Duration(10).Speed("v100", 1).Speed("k80", 0.25).Build();
  EXPECT_EQ(SpeedOn(typed, "k80"), 0.25);
  EXPECT_EQ(SpeedOn(typed, "p100"), 0);  // Not listed: cannot run there.
  EXPECT_EQ(SpeedOn(typed, kGenericGpuType), 1);
  const ClusterSpec mixed = TypedCluster({{"v100", 1}, {"k80", 1}}, 4);
  Placement across;
  across.shares = {NodeShare{.node = 0, .gpu_mask = 0b11}, NodeShare{.node = 1, .gpu_mask = 0b11}};
  EXPECT_EQ(PlacementSpeed(typed, across, mixed), 0.25);  // The slowest worker sets the pace.
  EXPECT_FALSE(WithinOneType(across, mixed));
}

TEST(ThroughputModel, ColocatedRateIsThePairThroughputOverTheIsolatedOne) {
  JobSpec a = ResNet50(1, 100);
  JobSpec b = JobBuilder(2).Duration(10).Model("ResNet-18").BatchSize(64).Build();
  // 3.553213803806571 / 4.394774823323071 = 0.80851...: x the V100 speed 1, the job then
  // does 3.5532 steps/s, the pair's measurement.
  EXPECT_DOUBLE_EQ(*Table().ColocatedRate(a, b, "v100"), 3.553213803806571 / kResNet50V100);
  EXPECT_FALSE(Table().ColocatedRate(a, JobBuilder(3).Model("Foo").Build(), "v100").ok());
}

// The same job alone on a V100 and on a K80. Its work is 4,395 V100 steps
// (4395 / 4.394774823 = 1000.05 s on a V100); on a K80 it does 0.619028 steps/s, so it
// takes 4395 / 0.619028 = 7099.8 s. The ratio of the JCTs is the table's ratio
// 4.394774823 / 0.619028220 = 7.09947.
TEST(HeterogeneousProgress, K80VersusV100MatchesTheTableRatio) {
  const std::vector<JobSpec> jobs = {ResNet50(0, 4395)};
  ScenarioResult v100 = RunScenario(jobs, TypedCluster({{"v100", 1}}, 1), Request("fifo"));
  ScenarioResult k80 = RunScenario(jobs, TypedCluster({{"k80", 1}}, 1), Request("fifo"));
  EXPECT_NEAR(v100.Jct(0), 4395 / kResNet50V100, 1e-6);
  EXPECT_NEAR(k80.Jct(0), 4395 / kResNet50K80, 1e-6);
  EXPECT_NEAR(k80.Jct(0) / v100.Jct(0), kResNet50V100 / kResNet50K80, 1e-9);
  EXPECT_NEAR(k80.Jct(0) / v100.Jct(0), 7.09947, 1e-5);
}

// One K80 node listed before one V100 node. The first job goes to the type that is
// fastest for it (V100: 1000.05 s); the second finds the V100 busy and takes the K80
// (7099.8 s); a type-agnostic third job waits for the first free GPU, the V100 at
// 1000.05 s, and runs 500 s at its solo speed there.
TEST(HeterogeneousProgress, JobsGoToTheirFastestFreeType) {
  const std::vector<JobSpec> jobs = {ResNet50(0, 4395), ResNet50(1, 4395, 1),
                                     JobBuilder(2).Submit(2).Duration(500).Build()};
  ScenarioResult r = RunScenario(jobs, TypedCluster({{"k80", 1}, {"v100", 1}}, 1),
                                 Request("fifo"));
  EXPECT_EQ(r.jobs.at(0).placement, "n1:0");
  EXPECT_EQ(r.jobs.at(1).placement, "n0:0");
  EXPECT_NEAR(r.Jct(0), 4395 / kResNet50V100, 1e-6);
  EXPECT_NEAR(r.Jct(1), 4395 / kResNet50K80, 1e-6);
  EXPECT_EQ(r.jobs.at(2).placement, "n1:0");
  EXPECT_NEAR(r.Start(2), 4395 / kResNet50V100, 1e-6);
  EXPECT_NEAR(r.Jct(2), 4395 / kResNet50V100 + 500 - 2, 1e-6);
}

TEST(HeterogeneousProgress, AStartOnATypeTheJobCannotRunOnIsRefused) {
  Trace trace;
  trace.jobs = {JobBuilder(0).Duration(10).Speed("v100", 1).Build()};
  const ClusterSpec k80_v100 = TypedCluster({{"k80", 1}, {"v100", 1}}, 1);  // n0 is the k80.
  Simulator sim(&trace, &k80_v100, SimulatorOptions());
  EventBatch events;
  ASSERT_TRUE(sim.NextDecisionPoint(&events));
  ASSERT_EQ(events.arrived, std::vector<JobId>{0});
  Decisions d;
  StartDecision s;
  s.job = 0;
  s.placement.shares = {NodeShare{.node = 0, .gpu_mask = 1}};
  d.start.push_back(s);
  Status st = sim.Apply(d);
  EXPECT_EQ(st.message(),
            "decision at t=0.000000: job 0 placed on n0:0, a GPU type it has no speed for "
            "(schedkit/throughput.h)");
}

// A job that lists no type of the cluster never reaches the policy, as a job larger than
// the cluster does: it is rejected at arrival (DecisionApplier::NeverFits has the reason).
TEST(HeterogeneousProgress, AJobNoTypeOfTheClusterRunsIsRejectedAtArrival) {
  Trace trace;
  trace.jobs = {JobBuilder(0).Duration(10).Speed("v100", 1).Build()};
  const ClusterSpec k80 = TypedCluster({{"k80", 2}}, 1);
  Simulator sim(&trace, &k80, SimulatorOptions());
  EventBatch events;
  EXPECT_TRUE(!sim.NextDecisionPoint(&events) || events.arrived.empty());
  EXPECT_EQ(sim.view().Status(0).state, JobState::kRejected);
}

// Records whether any start spans two GPU types.
class TypeSpanChecker final : public SimulationObserver {
 public:
  explicit TypeSpanChecker(const ClusterSpec* cluster) : cluster_(cluster) {}
  void OnJobStart(const JobSpec& job, Time now, const Placement& p) override {
    if (!WithinOneType(p, *cluster_)) {
      spans_.push_back("job " + std::to_string(job.id) + " on " + p.ToString());
    }
  }
  const std::vector<std::string>& spans() const { return spans_; }

 private:
  const ClusterSpec* cluster_;
  std::vector<std::string> spans_;
};

// The GPU-sharing modules (fgd, fgd-best-fit, ..., docs/fgd.md) put each job on one node: a
// job larger than every node never runs under them.
bool PlacesOnOneNode(const std::string& placement) { return placement.rfind("fgd", 0) == 0; }

TEST(HeterogeneousPlacement, NoJobSpansTwoTypesUnderTheBuiltInPlacements) {
  Result<Trace> trace = GenerateTrace(GavelGeneratorConfig(5, /*multi_gpu=*/true, 60, 30));
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  // 3 types x 3 nodes of 4 GPUs: an 8-GPU job fits in one type only across nodes.
  const ClusterSpec cluster = TypedCluster({{"v100", 3}, {"p100", 3}, {"k80", 3}}, 4);
  int runs = 0;
  for (const auto& placement : BuiltinRegistries().placements.entries()) {
    for (const char* policy : {"fifo", "las", "srtf"}) {
      PolicyRequest req;
      req.policy = policy;
      req.placement = placement.name;
      Result<std::unique_ptr<Policy>> p = MakePolicy(req);
      ASSERT_TRUE(p.ok()) << p.status().message();
      Simulator sim(&*trace, &cluster, SimulatorOptions());
      TypeSpanChecker checker(&cluster);
      sim.AddObserver(&checker);
      ASSERT_TRUE(sim.Run(p->get()).ok()) << policy << "/" << placement.name;
      if (!PlacesOnOneNode(placement.name)) {
        EXPECT_EQ(sim.stats().unfinished, 0) << policy << "/" << placement.name;
      }
      EXPECT_TRUE(checker.spans().empty())
          << policy << "/" << placement.name << ": " << checker.spans().front();
      ++runs;
    }
  }
  EXPECT_EQ(runs, 3 * static_cast<int>(BuiltinRegistries().placements.entries().size()));
}

TEST(HeterogeneousPlacement, OneTypeClustersPlaceAsBefore) {
  // On a one-type cluster the wrapper hands the module the state itself: the same
  // placement as an untyped cluster of the same shape, whatever the type's name.
  const ClusterSpec generic = ClusterSpec::Uniform(1, 3, 4, 0, 0);
  const ClusterSpec v100 = ClusterSpec::Uniform(1, 3, 4, 0, 0, "v100");
  const JobSpec job = JobBuilder(1).Gpus(6).Build();
  for (const auto& entry : BuiltinRegistries().placements.entries()) {
    if (PlacesOnOneNode(entry.name)) continue;  // The 6-GPU job fits no 4-GPU node.
    ModuleContext ctx;
    auto module = std::move(entry.factory(ctx)).value();
    EXPECT_EQ(module->Place(job, ClusterState(&generic)).ToString(),
              module->Place(job, ClusterState(&v100)).ToString())
        << entry.name;
  }
  // A mixed cluster: the 6-GPU job cannot fit in one 4-GPU v100 node plus k80 GPUs.
  const ClusterSpec mixed = TypedCluster({{"v100", 1}, {"k80", 2}}, 4);
  for (const auto& entry : BuiltinRegistries().placements.entries()) {
    if (PlacesOnOneNode(entry.name)) continue;
    ModuleContext ctx;
    auto module = std::move(entry.factory(ctx)).value();
    EXPECT_EQ(module->Place(job, ClusterState(&mixed)).ToString(), "n1:0-3;n2:0-1") << entry.name;
  }
}

}  // namespace
}  // namespace schedkit::testing
