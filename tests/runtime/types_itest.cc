// Heterogeneous GPUs under the runtime (issue 17; docs/runtime.md, "GPU types"): `serve
// --cluster` groups the host's GPU slots into typed nodes, `submit --type-speeds` stores a
// job's speed per type, the shared applier refuses a start on a type the job has no speed
// for, the placement keeps a job within the fastest type it fits on, the job sees its type
// in SCHEDKIT_GPU_TYPE, and its progress is booked at its speed there (StartRate, the
// simulator's rule). Real `schedkit serve`, real processes, the real CLI.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <utility>

#include "runtime_itest_util.h"

namespace schedkit::runtime::testing {
namespace {

// 2 k80 GPUs (node n0, slots 0-1), then 2 v100 (node n1, slots 2-3): the slow type comes
// first in cluster order, so a job that lands on the v100s was put there by its speeds.
std::string WriteTwoTypeCluster(const std::string& dir) {
  const std::string path = dir + "/cluster.csv";
  std::ofstream(path) << "switch,nodes,gpus_per_node,cpus_per_node,mem_gb_per_node,gpu_type\n"
                         "0,1,2,0,0,k80\n"
                         "0,1,2,0,0,v100\n";
  return path;
}

// The stored record of `id` (its booked work, which the API does not show).
JobRecord Stored(const std::string& state_dir, JobId id) {
  auto store = Store::Open(state_dir + "/schedkit.db");
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (!store.ok()) return {};
  Result<std::vector<JobRecord>> all = (*store)->LoadAll();
  EXPECT_TRUE(all.ok()) << all.status().message();
  if (!all.ok()) return {};
  for (const JobRecord& r : *all) {
    if (r.id == id) return r;
  }
  ADD_FAILURE() << "job " << id << " is not stored";
  return {};
}

// Submits `script` through the CLI; returns its id (0 on failure).
JobId SubmitCli(const std::string& state, const std::string& options, const std::string& script) {
  auto [rc, out] = RunCli("submit --state-dir '" + state + "' " + options + " -- sh -c '" +
                          script + "'");
  EXPECT_EQ(rc, 0) << out;
  return rc == 0 ? std::stoll(out) : 0;
}

// Also: a job without a speed for any type of the cluster is rejected at arrival.
TEST(RuntimeTypes, JobsRunOnTheFastestTypeTheyFitAtTheirSpeedThereAndNeverOnAnUnlistedType) {
  const std::string dir = FreshDir("types");
  const std::string state = dir + "/state";
  Server server(state, {"--cluster", WriteTwoTypeCluster(dir), "--policy", "fifo",
                        "--grace-s", "1"});
  const pb::ClusterStatusResponse cluster = server.ClusterStatus();
  ASSERT_EQ(cluster.nodes_size(), 2);
  EXPECT_EQ(cluster.nodes(0).name(), "n0");
  EXPECT_EQ(cluster.nodes(0).gpu_type(), "k80");
  EXPECT_EQ(cluster.nodes(1).gpu_type(), "v100");
  auto [status_rc, status_out] = RunCli("status --state-dir '" + state + "'");
  EXPECT_EQ(status_rc, 0) << status_out;
  EXPECT_NE(status_out.find("node n1         2/2 GPUs free, type v100"), std::string::npos)
      << status_out;

  const std::string script = "echo type=$SCHEDKIT_GPU_TYPE gpus=$CUDA_VISIBLE_DEVICES; sleep 60";
  const std::string both = "--type-speeds \"k80=0.25;v100=1\" --duration 100";
  // A and B run on both types, 4x faster on a v100. A takes the v100s (fastest first);
  // B finds them busy and takes the k80s.
  const JobId a = SubmitCli(state, "--gpus 2 " + both, script);
  ASSERT_TRUE(WaitFor([&] { return server.InState(a, pb::RUNNING); }, 20));
  const JobId b = SubmitCli(state, "--gpus 2 " + both, script);
  ASSERT_TRUE(WaitFor([&] { return server.InState(b, pb::RUNNING); }, 20));
  // C runs only on a v100: it waits, and still waits once the k80s are free.
  const JobId c = SubmitCli(state, "--gpus 1 --type-speeds v100=1", script);
  // D runs only on a type the cluster lacks: rejected at arrival, as in the simulator.
  const JobId d = SubmitCli(state, "--gpus 1 --type-speeds a100=1", script);
  ASSERT_TRUE(WaitFor([&] { return server.InState(d, pb::REJECTED); }, 20));
  EXPECT_EQ(server.Get(d).message(),
            "rejected: asks for 1 GPUs; the cluster has 0 of the GPU types it can run on (it "
            "has k80, v100)");

  const pb::Job ja = server.Get(a), jb = server.Get(b);
  EXPECT_EQ(ja.placement(), "n1:0-1");
  EXPECT_EQ(jb.placement(), "n0:0-1");
  ASSERT_EQ(ja.type_speeds_size(), 2);
  EXPECT_EQ(ja.type_speeds(0).gpu_type(), "k80");
  EXPECT_EQ(ja.type_speeds(0).speed(), 0.25);
  // Each job's rate: the policy's 1 times its speed on the type it got.
  EXPECT_EQ(ja.rate(), 1.0);
  EXPECT_EQ(jb.rate(), 0.25);
  // The job sees its type, and its GPUs as the host's slots (n1's are 2 and 3).
  EXPECT_TRUE(WaitFor([&] { return ReadFile(ja.stdout_path()) == "type=v100 gpus=2,3\n"; }, 20))
      << ReadFile(ja.stdout_path());
  EXPECT_TRUE(WaitFor([&] { return ReadFile(jb.stdout_path()) == "type=k80 gpus=0,1\n"; }, 20))
      << ReadFile(jb.stdout_path());

  ASSERT_TRUE(server.Cancel(b).ok());
  // The k80s are free; C never starts there (the policy's placement keeps it off them, and
  // the shared applier would refuse a start there). Several polls pass while it waits.
  EXPECT_FALSE(WaitFor([&] { return !server.InState(c, pb::PENDING); }, 1.5));
  EXPECT_EQ(EventCount(state, c, "started"), 0);
  EXPECT_EQ(server.ClusterStatus().nodes(0).free_gpus(), 2);

  // Booked progress: B did a quarter of a second of work per second it ran on the k80s.
  const JobRecord rb = Stored(state, b);
  EXPECT_GT(rb.executed_s, 0);
  EXPECT_DOUBLE_EQ(rb.work_done_s, rb.executed_s * 0.25);
  EXPECT_EQ(rb.type_speeds, (std::vector<TypeSpeed>{{"k80", 0.25}, {"v100", 1}}));

  ASSERT_TRUE(server.Cancel(a).ok());
  const JobRecord ra = Stored(state, a);
  EXPECT_GT(ra.executed_s, 0);
  EXPECT_DOUBLE_EQ(ra.work_done_s, ra.executed_s);
  // With the v100s free, C starts there.
  ASSERT_TRUE(WaitFor([&] { return server.InState(c, pb::RUNNING); }, 20));
  const pb::Job jc = server.Get(c);
  EXPECT_EQ(jc.placement(), "n1:0");
  EXPECT_EQ(jc.rate(), 1.0);
  EXPECT_TRUE(WaitFor([&] { return ReadFile(jc.stdout_path()) == "type=v100 gpus=2\n"; }, 20))
      << ReadFile(jc.stdout_path());
  EXPECT_TRUE(server.Cancel(c).ok());
}

// Gavel's heterogeneity-aware max-min fairness reads the speeds through the view and puts
// each job on a type of its own choosing; whichever it is, the job runs at its speed there,
// and a job without a speed for the v100s never runs on them.
TEST(RuntimeTypes, GavelRunsEachJobAtItsSpeedOnTheTypeItGivesIt) {
  const std::string dir = FreshDir("typesgavel");
  const std::string state = dir + "/state";
  Server server(state, {"--cluster", WriteTwoTypeCluster(dir), "--policy", "gavel", "--opt",
                        "round_s=1", "--grace-s", "1"});
  const std::string script = "sleep 60";
  const JobId both = SubmitCli(state, "--gpus 2 --type-speeds \"k80=0.25;v100=1\" --duration 100",
                               script);
  const JobId k80 = SubmitCli(state, "--gpus 2 --type-speeds k80=0.5 --duration 100", script);
  ASSERT_TRUE(WaitFor(
      [&] { return server.InState(both, pb::RUNNING) || server.InState(k80, pb::RUNNING); }, 20));
  // Over several rounds: every run's rate is its speed on its node's type.
  int checked = 0;
  WaitFor(
      [&] {
        for (const auto& [id, k80_speed] : {std::pair{both, 0.25}, std::pair{k80, 0.5}}) {
          const pb::Job j = server.Get(id);
          if (j.state() != pb::RUNNING) continue;
          if (j.placement().rfind("n0:", 0) == 0) {
            EXPECT_EQ(j.rate(), k80_speed) << "job " << id;
          } else {
            EXPECT_EQ(j.placement().rfind("n1:", 0), 0u) << j.placement();
            EXPECT_NE(id, k80) << "job " << id << " runs on the v100s";
            EXPECT_EQ(j.rate(), 1.0) << "job " << id;
          }
          ++checked;
        }
        return false;
      },
      2.5);
  EXPECT_GT(checked, 0);
  server.Cancel(both);
  server.Cancel(k80);
  // Booked progress, run by run: each job's work is its runs' seconds at its speed there.
  for (const auto& [id, k80_speed] : {std::pair{both, 0.25}, std::pair{k80, 0.5}}) {
    const JobRecord r = Stored(state, id);
    EXPECT_LE(r.work_done_s, r.executed_s + 1e-9) << "job " << id;
    if (id == k80) {
      EXPECT_DOUBLE_EQ(r.work_done_s, r.executed_s * k80_speed);
    }
  }
}

// A buggy policy: starts every pending job on the first GPU of node n0 (the k80s).
class FirstGpuPolicy final : public Policy {
 public:
  std::string_view Name() const override { return "first-gpu"; }
  void Decide(const ClusterView& view, const EventBatch&, Decisions* out) override {
    for (JobId id : view.PendingJobs()) {
      StartDecision s;
      s.job = id;
      s.placement.shares.push_back(NodeShare{.node = 0, .gpu_mask = 1});
      out->start.push_back(s);
      return;  // One a decision: the GPU is free for the next job once this one ends.
    }
  }
};

// The engine passes each job's spec to the shared applier: a start on a type the job lists
// no speed for is refused, as in the simulator, and nothing of that decision applies; a job
// that runs there starts at its speed.
TEST(RuntimeTypes, TheEngineRefusesAStartOnATypeTheJobHasNoSpeedFor) {
  const std::string dir = FreshDir("typesengine");
  RuntimeOptions options;
  options.cluster = WriteTwoTypeCluster(dir);
  std::unique_ptr<Engine> engine =
      StartEngineWith("types_refused", options, std::make_unique<FirstGpuPolicy>());
  ASSERT_NE(engine, nullptr);
  JobRecord v100_only;
  v100_only.command = {"sleep", "30"};
  v100_only.gpus = 1;
  v100_only.working_dir = dir;
  v100_only.type_speeds = {{"v100", 1}};
  Result<JobId> refused = engine->Submit(v100_only);
  ASSERT_TRUE(refused.ok()) << refused.status().message();
  // Several decisions pass (the loop retries a refused one at each poll); it never starts.
  EXPECT_FALSE(WaitFor([&] { return engine->Get(*refused)->state != RunState::kPending; }, 1));
  EXPECT_EQ(engine->Get(*refused)->state, RunState::kPending);
  ASSERT_TRUE(engine->Cancel(*refused).ok());

  JobRecord both = v100_only;
  both.type_speeds = {{"k80", 0.25}, {"v100", 1}};
  Result<JobId> ran = engine->Submit(both);
  ASSERT_TRUE(ran.ok()) << ran.status().message();
  ASSERT_TRUE(WaitFor([&] { return engine->Get(*ran)->state == RunState::kRunning; }, 20));
  EXPECT_EQ(engine->Get(*ran)->placement, "n0:0");
  EXPECT_EQ(engine->Get(*ran)->rate, 0.25);
  ASSERT_TRUE(engine->Cancel(*ran).ok());
}

TEST(RuntimeTypes, BadTypeSpeedsAreRefusedWithOneLineNamingTheField) {
  const std::string dir = FreshDir("typesbad");
  const std::string state = dir + "/state";
  Server server(state, {"--gpus", "2"});
  ExpectCliSubmitRefused(state, "--type-speeds 'k80=-1' -- true",
                         "--type-speeds 'k80=-1': gives GPU type 'k80' a speed that is not > 0");
  auto speed = [](std::string type, double v) {
    return [type, v](pb::SubmitRequest* r) {
      pb::TypeSpeed* s = r->add_type_speeds();
      s->set_gpu_type(type);
      s->set_speed(v);
    };
  };
  ExpectInvalidSubmits(
      server,
      {{speed("k80", 0), "type_speeds: gives GPU type 'k80' a speed that is not > 0"},
       {speed("k80", -2), "type_speeds: gives GPU type 'k80' a speed that is not > 0"},
       {speed("k80", NAN), "type_speeds: gives GPU type 'k80' a speed that is not > 0"},
       {speed("", 1), "type_speeds: GPU type '' is empty or holds , ; = \" or a line break"},
       {speed("a;b", 1), "type_speeds: GPU type 'a;b' is empty or holds , ; = \" or a line break"},
       {speed("\xff", 1), "type_speeds[0].gpu_type: not valid UTF-8"},
       {[&](pb::SubmitRequest* r) {
          speed("v100", 1)(r);
          speed("v100", 2)(r);
        },
        "type_speeds: names GPU type 'v100' twice"}});
}

// `serve --cluster` with a bad file, or with --gpus too, stops at once with one line.
TEST(RuntimeTypes, ABadClusterFileStopsServeWithOneLineNamingFileLineAndField) {
  const std::string dir = FreshDir("typescluster");
  std::ofstream(dir + "/bad.csv")
      << "switch,nodes,gpus_per_node,cpus_per_node,mem_gb_per_node,gpu_type\n0,x,1,0,0,k80\n";
  for (const auto& [args, message] :
       {std::pair{"--cluster '" + dir + "/bad.csv'",
                  "schedkit: --cluster: " + dir + "/bad.csv:2: field 'nodes': 'x' is not an integer"},
        std::pair{"--gpus 2 --cluster '" + WriteTwoTypeCluster(dir) + "'",
                  std::string("schedkit: --gpus and --cluster: give one")}}) {
    auto [rc, out] = RunCli("serve --state-dir '" + dir + "/state' " + args);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_EQ(out.rfind(message, 0), 0u) << out;
  }
}

// The store keeps a job's speeds exactly (the trace's text, shortest round trip).
TEST(RuntimeStore, KeepsAJobsTypeSpeeds) {
  const std::string path = FreshDir("typesstore") + "/schedkit.db";
  Result<std::unique_ptr<Store>> store = Store::Open(path);
  ASSERT_TRUE(store.ok()) << store.status().message();
  JobRecord j;
  j.command = {"true"};
  j.type_speeds = {{"k80", 0.1}, {"v100", 1}};
  ASSERT_TRUE((*store)->Insert(&j).ok());
  JobRecord plain;
  plain.command = {"true"};
  ASSERT_TRUE((*store)->Insert(&plain).ok());
  Result<std::vector<JobRecord>> jobs = (*store)->LoadAll();
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].type_speeds, j.type_speeds);
  EXPECT_TRUE((*jobs)[1].type_speeds.empty());
}

}  // namespace
}  // namespace schedkit::runtime::testing
