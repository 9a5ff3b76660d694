// `schedkit serve --backend slurm` on a real two-node Slurm cluster that the test starts
// itself on loopback (tests/slurm/test_cluster.sh; Debian's slurmctld, slurmd,
// slurm-client from scripts/setup.sh). Checks placement, preemption by requeue and
// re-adoption of running Slurm jobs after a SIGKILL of the service.
#include <signal.h>

#include <cstdlib>
#include <map>

#include "runtime/backend.h"
#include "runtime_itest_util.h"

namespace schedkit::runtime::testing {
namespace {

class SlurmCluster {
 public:
  explicit SlurmCluster(std::string dir) : dir_(std::move(dir)) {
    const std::string cmd =
        kSource + "/tests/slurm/test_cluster.sh start " + dir_ + " > " + dir_ + ".start.log 2>&1";
    ok_ = std::system(cmd.c_str()) == 0;
    setenv("SLURM_CONF", (dir_ + "/slurm.conf").c_str(), 1);
  }
  ~SlurmCluster() { std::system((kSource + "/tests/slurm/test_cluster.sh stop " + dir_).c_str()); }
  bool ok() const { return ok_; }
  std::string log() const { return ReadFile(dir_ + ".start.log"); }

 private:
  std::string dir_;
  bool ok_ = false;
};

// Fields of `scontrol show job -o ID`.
std::map<std::string, std::string> SlurmJob(const std::string& id) {
  Result<CommandOutput> r = RunCommand({"scontrol", "show", "job", "-o", id});
  std::map<std::string, std::string> f;
  if (!r.ok()) return f;
  std::istringstream in(r->out);
  std::string tok;
  while (in >> tok) {
    const size_t eq = tok.find('=');
    if (eq != std::string::npos) f[tok.substr(0, eq)] = tok.substr(eq + 1);
  }
  return f;
}

std::string NodeOf(const pb::Job& j) { return j.placement().substr(0, j.placement().find(':')); }

TEST(RuntimeSlurm, PlacesJobsOnTheChosenNodesAndPreemptsByRequeue) {
  ASSERT_EQ(std::system("command -v slurmctld > /dev/null"), 0)
      << "slurmctld is not installed: run scripts/setup.sh";
  const std::string dir = FreshDir("slurm");
  SlurmCluster cluster(dir + "/cluster");
  ASSERT_TRUE(cluster.ok()) << cluster.log();
  // Queue 0 holds jobs below 4 GPU-seconds: a 4-GPU job is demoted after 1 s of running.
  Server server(dir + "/state", {"--backend", "slurm", "--policy", "tiresias", "--opt",
                                 "thresholds=4", "--poll-s", "0.5"});
  const pb::ClusterStatusResponse status = server.ClusterStatus();
  ASSERT_EQ(status.nodes_size(), 2);
  EXPECT_EQ(status.nodes(0).name(), "n1");
  EXPECT_EQ(status.nodes(0).gpus(), 4);

  const JobId a = server.SubmitArgv({"sleep", "120"}, 4);
  const JobId b = server.SubmitArgv({"sleep", "120"}, 4);
  auto slurm_running = [&](JobId id) {
    const pb::Job j = server.Get(id);
    return j.state() == pb::RUNNING && SlurmJob(j.backend_id())["JobState"] == "RUNNING";
  };
  ASSERT_TRUE(WaitFor([&] { return slurm_running(a) && slurm_running(b); }, 30));
  const pb::Job ja = server.Get(a), jb = server.Get(b);
  // Placement: Slurm runs each job exactly where the policy put it, on different nodes.
  EXPECT_EQ(SlurmJob(ja.backend_id())["NodeList"], NodeOf(ja));
  EXPECT_EQ(SlurmJob(jb.backend_id())["NodeList"], NodeOf(jb));
  EXPECT_NE(NodeOf(ja), NodeOf(jb));
  EXPECT_EQ(ja.placement().substr(ja.placement().find(':')), ":0-3");

  // Both are demoted past 4 GPU-seconds; a new 4-GPU job outranks them.
  ASSERT_TRUE(WaitFor(
      [&] { return server.Get(a).executed_s() > 1.5 && server.Get(b).executed_s() > 1.5; }, 20));
  const JobId c = server.SubmitArgv({"sleep", "1"}, 4);
  ASSERT_TRUE(WaitFor(
      [&] { return server.Get(a).restart_count() + server.Get(b).restart_count() == 1; }, 20));
  const JobId victim = server.Get(a).restart_count() == 1 ? a : b;
  const pb::Job v = server.Get(victim);
  const std::string victim_node = victim == a ? NodeOf(ja) : NodeOf(jb);
  EXPECT_EQ(v.state(), pb::PENDING);
  EXPECT_TRUE(WaitFor(
      [&] {
        auto f = SlurmJob(v.backend_id());
        return f["JobState"] == "PENDING" && f["Restarts"] == "1";
      },
      20))
      << "not requeued in Slurm";
  // The newcomer runs on the node the victim left, and finishes.
  ASSERT_TRUE(WaitFor([&] { return server.InState(c, pb::SUCCEEDED); }, 30));
  const std::string c_slurm = server.Get(c).backend_id();
  EXPECT_EQ(SlurmJob(c_slurm)["NodeList"], victim_node);
  // The victim resumes as the same Slurm job, now released again.
  ASSERT_TRUE(WaitFor([&] { return slurm_running(victim); }, 30));
  EXPECT_EQ(server.Get(victim).backend_id(), v.backend_id());
  EXPECT_EQ(server.Get(victim).restart_count(), 1);
  // A crash of the service: both Slurm jobs are still running and are re-adopted as they are.
  const std::string a_id = server.Get(a).backend_id(), b_id = server.Get(b).backend_id();
  server.Kill(SIGKILL);
  server.Start();
  for (auto [id, slurm_id] : {std::pair{a, a_id}, std::pair{b, b_id}}) {
    const pb::Job j = server.Get(id);
    EXPECT_EQ(j.state(), pb::RUNNING) << id;
    EXPECT_EQ(j.backend_id(), slurm_id);
    EXPECT_EQ(j.restart_count(), id == victim ? 1 : 0);
  }
  for (JobId id : {a, b}) {
    ASSERT_TRUE(server.Cancel(id).ok());
    EXPECT_TRUE(WaitFor(
        [&] {
          const std::string s = SlurmJob(server.Get(id).backend_id())["JobState"];
          return s == "CANCELLED" || s.empty();
        },
        20));
  }
}

// Time limits and allocation variables on Slurm (docs/runtime.md, "Time limits and allocation
// changes"): the service ends the job at its limit (scancel) and records TIMEOUT; Slurm holds
// the limit too, in whole minutes rounded up, as a backstop; a resize is refused.
TEST(RuntimeSlurm, TimeLimitEndsTheJobAndSlurmHoldsItAsABackstop) {
  ASSERT_EQ(std::system("command -v slurmctld > /dev/null"), 0)
      << "slurmctld is not installed: run scripts/setup.sh";
  const std::string dir = FreshDir("slurm_limit");
  SlurmCluster cluster(dir + "/cluster");
  ASSERT_TRUE(cluster.ok()) << cluster.log();
  Server server(dir + "/state", {"--backend", "slurm", "--poll-s", "0.5"});
  pb::SubmitRequest req;
  req.add_command("echo gpus=$SCHEDKIT_GPUS limit=$SCHEDKIT_TIME_LIMIT_S left=$SCHEDKIT_TIME_LEFT_S "
                  "type=$SCHEDKIT_GPU_TYPE; sleep 120");
  req.set_shell(true);
  req.set_gpus(2);
  // Run time counts from the release; Slurm may take a few seconds to start the job.
  req.set_time_limit_s(8);
  const JobId id = *server.Submit(req);
  ASSERT_TRUE(WaitFor([&] { return server.InState(id, pb::RUNNING); }, 30));
  const std::string out = server.Get(id).stdout_path();
  EXPECT_TRUE(WaitFor([&] { return ReadFile(out).find("left=") != std::string::npos; }, 30));
  EXPECT_EQ(SlurmJob(server.Get(id).backend_id())["TimeLimit"], "00:01:00");
  pb::ResizeRequest resize;
  resize.set_job_id(id);
  resize.set_gpus(1);
  pb::ResizeResponse resized;
  const grpc::Status st =
      server.client().stub().Resize(server.client().Context().get(), resize, &resized);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(st.error_message(),
            "the slurm backend cannot change a running job's GPUs (a Slurm allocation is fixed "
            "once granted)");
  ASSERT_TRUE(WaitFor([&] { return server.InState(id, pb::TIMEOUT); }, 30));
  const pb::Job j = server.Get(id);
  EXPECT_GE(j.executed_s(), 8.0);
  EXPECT_TRUE(WaitFor(
      [&] {
        const std::string s = SlurmJob(j.backend_id())["JobState"];
        return s == "CANCELLED" || s.empty();
      },
      20));
  // The nodes' gres is gpu:4, of no type: `generic`, read from jobs/<id>/gpu_type.
  EXPECT_EQ(ReadFile(out), "gpus=2 limit=8 left=8 type=generic\n");
}

// A job submitted held (sbatch --hold) never stays queued in Slurm when its start does
// not complete: a release that fails cancels it, recovery cancels a held submission that
// the service did not live to record, and leaves the recorded ones (and those of other
// state directories) alone.
TEST(RuntimeSlurm, HeldSubmissionsWhoseStartNeverCompletesAreCancelled) {
  ASSERT_EQ(std::system("command -v slurmctld > /dev/null"), 0)
      << "slurmctld is not installed: run scripts/setup.sh";
  const std::string dir = FreshDir("slurm_held");
  SlurmCluster cluster(dir + "/cluster");
  ASSERT_TRUE(cluster.ok()) << cluster.log();
  RuntimeOptions options;
  options.backend = "slurm";
  options.state_dir = dir + "/state";
  RuntimeOptions other = options;
  other.state_dir = dir + "/other_state";
  auto backend = MakeSlurmBackend(options);
  ASSERT_TRUE(backend.ok()) << backend.status().message();
  auto other_backend = MakeSlurmBackend(other);
  ASSERT_TRUE(other_backend.ok()) << other_backend.status().message();
  const Placement on_first_node = *ParsePlacement("n0:0");
  auto held = [&](Backend& b, JobId id) {
    JobRecord job;
    job.id = id;
    job.command = {"sleep", "60"};
    Result<std::string> slurm_id = b.Start(job, on_first_node);
    EXPECT_TRUE(slurm_id.ok()) << slurm_id.status().message();
    return slurm_id.ok() ? *slurm_id : std::string();
  };
  auto state_of = [](const std::string& id) { return SlurmJob(id)["JobState"]; };
  auto gone = [&](const std::string& id) {
    return WaitFor([&] { return state_of(id) == "CANCELLED" || state_of(id).empty(); }, 20);
  };

  // The service died between sbatch and recording: a later service's recovery ends it.
  const std::string unrecorded = held(**backend, 1);
  const std::string recorded = held(**backend, 2);
  const std::string others = held(**other_backend, 1);
  ASSERT_EQ(state_of(unrecorded), "PENDING");
  auto restarted = MakeSlurmBackend(options);
  ASSERT_TRUE(restarted.ok());
  (*restarted)->EndUnrecorded({recorded});
  EXPECT_TRUE(gone(unrecorded)) << "an unrecorded held submission stayed queued";
  EXPECT_EQ(state_of(recorded), "PENDING") << "a recorded held job was cancelled";
  EXPECT_EQ(state_of(others), "PENDING") << "another state directory's job was cancelled";

  // The same through the service: its recovery ends what no record names.
  const std::string before_start = held(**backend, 3);
  {
    Server server(options.state_dir, {"--backend", "slurm", "--poll-s", "0.5"});
    EXPECT_TRUE(gone(before_start)) << "serve's recovery left an unrecorded held job queued";
    EXPECT_TRUE(gone(recorded)) << "no record of the new service names it either";
  }

  // A release that fails (scontrol refuses it) leaves nothing queued.
  const std::string shim = dir + "/shim";
  std::filesystem::create_directories(shim);
  {
    std::ofstream out(shim + "/scontrol");
    out << "#!/bin/sh\n[ \"$1\" = release ] && { echo refused >&2; exit 1; }\n"
        << "exec /usr/bin/scontrol \"$@\"\n";
  }
  std::filesystem::permissions(shim + "/scontrol", std::filesystem::perms::owner_all);
  JobRecord job;
  job.id = 4;
  job.command = {"sleep", "60"};
  Result<std::string> id = (*backend)->Start(job, on_first_node);
  ASSERT_TRUE(id.ok()) << id.status().message();
  job.backend_id = *id;
  const std::string path = std::getenv("PATH");
  setenv("PATH", (shim + ":" + path).c_str(), 1);
  const Status launched = (*backend)->Launch(job);
  setenv("PATH", path.c_str(), 1);
  EXPECT_FALSE(launched.ok());
  EXPECT_TRUE(gone(*id)) << "a job whose release failed stayed queued";
  (*other_backend)->EndUnrecorded({});
  EXPECT_TRUE(gone(others));
}

}  // namespace
}  // namespace schedkit::runtime::testing
