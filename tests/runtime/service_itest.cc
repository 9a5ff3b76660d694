// The runtime end to end: the real `schedkit serve` (local backend, one fake GPU slot),
// real processes, real gRPC over loopback, the real SQLite store. Nothing is mocked.
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <thread>

#include "cli_runner.h"
#include "runtime_itest_util.h"

namespace schedkit::runtime::testing {
namespace {

TEST(RuntimeService, FifoRunsJobsInSubmitOrderOnOneSlotWithItsEnvironment) {
  const std::string dir = FreshDir("fifo");
  Server server(dir + "/state", {"--gpus", "1", "--policy", "fifo"});
  // No shell: '$HOME' reaches echo as it is.
  const JobId a = server.SubmitArgv({"/bin/echo", "$HOME"});
  const JobId b = server.SubmitArgv({"sleep", "0.3"});
  pb::SubmitRequest env;
  env.add_command(
      "echo id=$SCHEDKIT_JOB_ID gpus=$CUDA_VISIBLE_DEVICES restarts=$SCHEDKIT_RESTART_COUNT");
  env.set_shell(true);
  env.set_gpus(1);
  const JobId c = *server.Submit(env);
  ASSERT_TRUE(WaitFor([&] { return server.InState(c, pb::SUCCEEDED); }, 20));
  const pb::Job ja = server.Get(a), jb = server.Get(b), jc = server.Get(c);
  EXPECT_EQ(ja.state(), pb::SUCCEEDED);
  EXPECT_EQ(jb.state(), pb::SUCCEEDED);
  // One slot: each starts after the previous one has finished, in submit order.
  EXPECT_LE(ja.finish_time(), jb.first_start_time());
  EXPECT_LE(jb.finish_time(), jc.first_start_time());
  EXPECT_GE(jb.executed_s(), 0.3);
  EXPECT_EQ(ReadFile(ja.stdout_path()), "$HOME\n");
  EXPECT_EQ(ReadFile(jc.stdout_path()), "id=" + std::to_string(c) + " gpus=0 restarts=0\n");
}

TEST(RuntimeService, TiresiasPreemptsALongJobWhichResumesFromItsCheckpoint) {
  const std::string dir = FreshDir("tiresias");
  // Queue 0 holds jobs below 1 GPU-second of attained service.
  Server server(dir + "/state",
                {"--gpus", "1", "--policy", "tiresias", "--opt", "thresholds=1", "--grace-s", "5"});
  const std::string ckpt = dir + "/ckpt";
  const JobId train =
      server.SubmitArgv({"/usr/bin/python3", kSource + "/examples/checkpointing_train.py",
                         "--steps", "60", "--step-s", "0.05"},
                        1, ckpt);
  ASSERT_TRUE(WaitFor([&] { return server.Get(train).executed_s() > 1.3; }, 20));
  ASSERT_EQ(server.Get(train).state(), pb::RUNNING);
  // A new job is in queue 0, the running one was demoted to queue 1: it is preempted.
  const JobId quick = server.SubmitArgv({"sleep", "0.5"});
  ASSERT_TRUE(WaitFor([&] { return server.InState(train, pb::SUCCEEDED); }, 30))
      << ReadFile(server.Get(train).stderr_path());
  const pb::Job t = server.Get(train), q = server.Get(quick);
  EXPECT_EQ(q.state(), pb::SUCCEEDED);
  EXPECT_LT(q.first_start_time(), t.finish_time());
  EXPECT_GT(q.first_start_time(), t.first_start_time());
  EXPECT_EQ(t.restart_count(), 1);
  EXPECT_EQ(EventCount(server.state_dir(), train, "preempted"), 1);
  EXPECT_EQ(t.checkpoint_dir(), ckpt);
  EXPECT_TRUE(std::filesystem::exists(ckpt + "/checkpoint.json"));
  const std::string out = ReadFile(t.stdout_path());
  EXPECT_NE(out.find("restart_count=0 resumed_from=0 gpus=0"), std::string::npos) << out;
  EXPECT_NE(out.find("checkpoint saved"), std::string::npos) << out;
  EXPECT_NE(out.find("restart_count=1 resumed_from="), std::string::npos) << out;
  EXPECT_EQ(out.find("restart_count=1 resumed_from=0 "), std::string::npos)
      << "resumed from scratch:\n"
      << out;
  EXPECT_NE(out.find("done steps=60 total=1770"), std::string::npos) << out;
}

TEST(RuntimeService, SrtfUsesTheSubmittedEstimateMinusMeasuredRunTime) {
  const std::string dir = FreshDir("srtf");
  Server server(dir + "/state", {"--gpus", "1", "--policy", "srtf", "--grace-s", "5"});
  pb::SubmitRequest req;
  req.add_command("sleep");
  req.add_command("2");
  req.set_gpus(1);
  req.set_duration_s(20);  // A (too) long estimate: about 19 s left when the short one comes.
  const JobId long_job = *server.Submit(req);
  ASSERT_TRUE(WaitFor([&] { return server.InState(long_job, pb::RUNNING); }, 20));
  req.set_command(1, "0.2");
  req.set_duration_s(1);
  const JobId short_job = *server.Submit(req);
  ASSERT_TRUE(WaitFor([&] { return server.InState(long_job, pb::SUCCEEDED); }, 30));
  const pb::Job l = server.Get(long_job), s = server.Get(short_job);
  EXPECT_EQ(s.state(), pb::SUCCEEDED);
  EXPECT_LT(s.finish_time(), l.finish_time());
  EXPECT_EQ(l.restart_count(), 1);  // Preempted for the shorter remaining time, then resumed.
}

TEST(RuntimeService, EnforcesMemoryAndPinsCpus) {
  const std::string dir = FreshDir("limits");
  Server server(dir + "/state", {"--gpus", "1"});
  pb::SubmitRequest req;
  req.add_command("/usr/bin/python3");
  req.add_command("-c");
  req.add_command("import os; print(sorted(os.sched_getaffinity(0))); b = bytearray(600 << 20)");
  req.set_gpus(1);
  req.set_cpus(1);
  req.set_mem_gb(0.25);  // RLIMIT_AS: the 600 MB allocation fails.
  const JobId capped = *server.Submit(req);
  ASSERT_TRUE(WaitFor([&] { return server.InState(capped, pb::FAILED); }, 20));
  const pb::Job j = server.Get(capped);
  EXPECT_EQ(j.exit_code(), 1);
  EXPECT_NE(ReadFile(j.stderr_path()).find("MemoryError"), std::string::npos)
      << ReadFile(j.stderr_path());
  const std::string cpus = ReadFile(j.stdout_path());  // One CPU asked: pinned to one core.
  EXPECT_TRUE(cpus.size() >= 4 && cpus.front() == '[' && cpus.find(',') == std::string::npos)
      << cpus;
  req.set_mem_gb(0);  // No limit: the same program succeeds.
  const JobId free_job = *server.Submit(req);
  ASSERT_TRUE(WaitFor([&] { return server.InState(free_job, pb::SUCCEEDED); }, 20))
      << ReadFile(server.Get(free_job).stderr_path());
}

TEST(RuntimeService, CancelsPendingAndRunningJobsAndTheQueueMovesOn) {
  const std::string dir = FreshDir("cancel");
  Server server(dir + "/state", {"--gpus", "1", "--policy", "fifo", "--grace-s", "5"});
  const JobId running = server.SubmitArgv({"sleep", "30"});
  const JobId pending = server.SubmitArgv({"sleep", "30"});
  ASSERT_TRUE(WaitFor([&] { return server.InState(running, pb::RUNNING); }, 20));
  // Through the CLI, as a user would.
  const std::string cli =
      kCli + " cancel --state-dir " + server.state_dir() + " " + std::to_string(pending);
  EXPECT_EQ(std::system((cli + " > /dev/null").c_str()), 0);
  EXPECT_EQ(server.Get(pending).state(), pb::CANCELLED);
  const pid_t monitor = MonitorPid(server.Get(running));
  ASSERT_GT(monitor, 0);
  ASSERT_TRUE(server.Cancel(running).ok());
  EXPECT_EQ(server.Get(running).state(), pb::CANCELLED);
  EXPECT_TRUE(WaitFor([&] { return kill(monitor, 0) != 0; }, 5))
      << "the job's processes outlived cancel";
  const JobId next = server.SubmitArgv({"true"});
  ASSERT_TRUE(WaitFor([&] { return server.InState(next, pb::SUCCEEDED); }, 20));
  EXPECT_EQ(server.Get(pending).first_start_time(), 0) << "a cancelled pending job started";
  const grpc::Status again = server.Cancel(running);
  EXPECT_EQ(again.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(again.error_message().find("already ended CANCELLED"), std::string::npos)
      << again.error_message();
}

TEST(RuntimeService, SigkillOfTheServiceLosesNoJobAndReadoptsOrRequeues) {
  const std::string dir = FreshDir("crash");
  Server server(dir + "/state", {"--gpus", "1", "--policy", "fifo", "--grace-s", "2"});
  const JobId a = server.SubmitArgv({"sleep", "3"});
  const JobId b = server.SubmitArgv({"sleep", "0.2"});
  const JobId c = server.SubmitArgv({"true"});
  ASSERT_TRUE(WaitFor([&] { return server.InState(a, pb::RUNNING); }, 20));
  const std::string a_backend = server.Get(a).backend_id();
  server.Kill(SIGKILL);
  server.Start();
  // Still running: re-adopted, not restarted.
  const pb::Job adopted = server.Get(a);
  EXPECT_EQ(adopted.backend_id(), a_backend);
  EXPECT_EQ(adopted.restart_count(), 0);
  ASSERT_TRUE(WaitFor([&] { return server.InState(c, pb::SUCCEEDED); }, 20));
  for (JobId id : {a, b}) EXPECT_EQ(server.Get(id).state(), pb::SUCCEEDED) << id;
  EXPECT_EQ(server.Get(a).restart_count(), 0);
  EXPECT_EQ(EventCount(server.state_dir(), a, "adopted"), 1);

  // Now the job dies with the service (its whole process group killed): requeued.
  const JobId d = server.SubmitArgv({"sleep", "30"});
  ASSERT_TRUE(WaitFor([&] { return server.InState(d, pb::RUNNING); }, 20));
  const pid_t monitor = MonitorPid(server.Get(d));
  server.Kill(SIGKILL);
  kill(-monitor, SIGKILL);
  ASSERT_TRUE(WaitFor([&] { return kill(monitor, 0) != 0; }, 5));
  server.Start();
  ASSERT_TRUE(WaitFor([&] { return server.InState(d, pb::RUNNING); }, 20));
  const pb::Job requeued = server.Get(d);
  EXPECT_EQ(requeued.restart_count(), 1);
  EXPECT_NE(requeued.backend_id(), "");
  EXPECT_EQ(EventCount(server.state_dir(), d, "requeued"), 1);
  pb::ListJobsResponse all;
  ASSERT_TRUE(server.client()
                  .stub()
                  .ListJobs(server.client().Context().get(), pb::ListJobsRequest(), &all)
                  .ok());
  EXPECT_EQ(all.jobs_size(), 4);
  ASSERT_TRUE(server.Cancel(d).ok());
}

TEST(RuntimeService, RejectsAWrongOrMissingTokenAndKeepsTheTokenPrivate) {
  const std::string dir = FreshDir("auth");
  Server server(dir + "/state", {"--gpus", "1"});
  struct stat st;
  ASSERT_EQ(stat((server.state_dir() + "/token").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600);
  EXPECT_EQ(server.endpoint().address.rfind("127.0.0.1:", 0), 0u) << server.endpoint().address;
  Endpoint wrong = server.endpoint();
  wrong.token = "not-the-token";
  Client bad(wrong);
  pb::SubmitRequest req;
  req.add_command("true");
  pb::SubmitResponse resp;
  grpc::Status s = bad.stub().Submit(bad.Context().get(), req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << s.error_message();
  grpc::ClientContext no_token;
  pb::ClusterStatusResponse status;
  s = bad.stub().ClusterStatus(&no_token, pb::ClusterStatusRequest(), &status);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(s.error_message().find("authorization"), std::string::npos) << s.error_message();
  pb::ListJobsResponse jobs;
  ASSERT_TRUE(server.client()
                  .stub()
                  .ListJobs(server.client().Context().get(), pb::ListJobsRequest(), &jobs)
                  .ok());
  EXPECT_EQ(jobs.jobs_size(), 0) << "a rejected submission was queued";
  // The CLI with a wrong token file fails with the gRPC status.
  std::ofstream(dir + "/bad_token") << std::string(64, 'f') << "\n";
  chmod((dir + "/bad_token").c_str(), 0600);
  EXPECT_NE(std::system((kCli + " jobs --state-dir " + server.state_dir() + " --token-file " + dir +
                         "/bad_token 2> " + dir + "/cli.err")
                            .c_str()),
            0);
  EXPECT_NE(ReadFile(dir + "/cli.err").find("UNAUTHENTICATED"), std::string::npos);
}

TEST(RuntimeService, MalformedRequestsGetClearErrors) {
  const std::string dir = FreshDir("malformed");
  Server server(dir + "/state", {"--gpus", "1"});
  const std::vector<BadSubmit> cases = {
      {[](pb::SubmitRequest* r) { r->clear_command(); }, "command: empty"},
      {[](pb::SubmitRequest* r) { r->set_gpus(-1); }, "gpus: -1 is negative"},
      {[](pb::SubmitRequest* r) { r->set_gpus(2); }, "gpus: 2 requested, the cluster has 1"},
      {[](pb::SubmitRequest* r) { r->set_cpus(-3); }, "cpus: -3"},
      {[](pb::SubmitRequest* r) { r->set_mem_gb(NAN); }, "mem_gb"},
      {[](pb::SubmitRequest* r) { r->set_duration_s(-5); }, "duration_s"},
      {[](pb::SubmitRequest* r) {
         r->set_shell(true);
         r->add_command("x");
       },
       "exactly one element"},
      {[](pb::SubmitRequest* r) { r->set_checkpoint_dir("rel/dir"); },
       "checkpoint_dir: 'rel/dir' is not an absolute"},
      {[](pb::SubmitRequest* r) { r->set_command(0, ""); }, "command[0]: empty"},
  };
  ExpectInvalidSubmits(server, cases);
  pb::GetJobRequest get;
  get.set_job_id(12345);
  pb::Job job;
  grpc::Status s = server.client().stub().GetJob(server.client().Context().get(), get, &job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(s.error_message(), "job 12345: no such job");
  EXPECT_EQ(server.Cancel(12345).error_code(), grpc::StatusCode::NOT_FOUND);
  pb::DrainNodeRequest drain;
  drain.set_node("n9");
  pb::DrainNodeResponse dr;
  s = server.client().stub().DrainNode(server.client().Context().get(), drain, &dr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(s.error_message(), "node 'n9': no such node (nodes: local)");
  pb::ListJobsRequest list;
  list.add_states(static_cast<pb::JobState>(42));
  pb::ListJobsResponse lr;
  s = server.client().stub().ListJobs(server.client().Context().get(), list, &lr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // A well-formed job whose program does not exist fails, with the reason.
  const JobId missing = server.SubmitArgv({"no-such-program-schedkit"});
  ASSERT_TRUE(WaitFor([&] { return server.InState(missing, pb::FAILED); }, 20));
  EXPECT_NE(server.Get(missing).message().find("not found in PATH"), std::string::npos);
  // And the queue is not stuck behind it.
  const JobId ok = server.SubmitArgv({"true"});
  EXPECT_TRUE(WaitFor([&] { return server.InState(ok, pb::SUCCEEDED); }, 20));
}

TEST(RuntimeService, WatchStreamsTransitionsAndDrainHoldsNewJobs) {
  const std::string dir = FreshDir("watch");
  Server server(dir + "/state", {"--gpus", "1"});
  std::atomic<bool> finished_seen{false};
  grpc::ClientContext watch_ctx;
  watch_ctx.AddMetadata("authorization", "Bearer " + server.endpoint().token);
  std::vector<std::pair<JobId, std::string>> seen;  // Written by the reader until it is joined.
  std::thread reader([&] {
    auto stream = server.client().stub().WatchJobs(&watch_ctx, pb::WatchJobsRequest());
    pb::JobEvent e;
    while (stream->Read(&e)) {
      seen.emplace_back(e.job().id(), e.kind());
      if (e.kind() == "finished") {
        finished_seen = true;
        break;
      }
    }
    watch_ctx.TryCancel();
    stream->Finish();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // Let the stream open.
  const JobId watched = server.SubmitArgv({"true"});
  EXPECT_TRUE(WaitFor([&] { return finished_seen.load(); }, 20));
  watch_ctx.TryCancel();
  reader.join();
  std::vector<std::string> kinds;
  for (const auto& [id, kind] : seen) {
    if (id == watched) kinds.push_back(kind);
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"submitted", "started", "finished"}));

  EXPECT_EQ(std::system(
                (kCli + " drain --state-dir " + server.state_dir() + " local > /dev/null").c_str()),
            0);
  const JobId held = server.SubmitArgv({"true"});
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  EXPECT_EQ(server.Get(held).state(), pb::PENDING) << "a job started on a drained node";
  const pb::ClusterStatusResponse status = server.ClusterStatus();
  ASSERT_EQ(status.nodes_size(), 1);
  EXPECT_TRUE(status.nodes(0).drained());
  EXPECT_EQ(status.pending(), 1);
  EXPECT_EQ(status.policy(), "fifo");
}

// The runtime's commands live in libschedkit_runtime_commands.so (registry/companion.h):
// opened for them and for --help, never for another command, so those start without gRPC.
// A path that cannot load shows which commands open it.
TEST(RuntimeService, OnlyTheRuntimesCommandsOpenTheirLibrary) {
  using schedkit::testing::RunCli;
  const std::string missing = ::testing::TempDir() + "/nowhere/libschedkit_runtime_commands.so";
  ASSERT_EQ(setenv("SCHEDKIT_RUNTIME_COMMANDS", missing.c_str(), 1), 0);
  const std::string source = SCHEDKIT_SOURCE_DIR;
  const auto simulate = RunCli("simulate --trace " + source + "/data/traces/tiny.csv --cluster " +
                               source + "/data/clusters/tiny.csv --policy fifo");
  const auto version = RunCli("--version");
  const auto serve = RunCli("serve --help");
  const auto help = RunCli("--help");
  unsetenv("SCHEDKIT_RUNTIME_COMMANDS");
  EXPECT_EQ(simulate.exit_code, 0) << simulate.output;
  EXPECT_NE(simulate.output.find("jobs finished      7"), std::string::npos) << simulate.output;
  EXPECT_EQ(version.exit_code, 0) << version.output;
  for (const auto& o : {serve, help}) {
    EXPECT_EQ(o.exit_code, 1) << o.output;
    EXPECT_EQ(o.output.rfind("schedkit: " + missing + ": cannot load: ", 0), 0u) << o.output;
    EXPECT_EQ(std::count(o.output.begin(), o.output.end(), '\n'), 1) << o.output;
  }
  const auto found = RunCli("serve --help");  // Beside the executable.
  EXPECT_EQ(found.exit_code, 0) << found.output;
  EXPECT_NE(found.output.find("--backend"), std::string::npos) << found.output;
}

}  // namespace
}  // namespace schedkit::runtime::testing
