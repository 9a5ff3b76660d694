// Adaptive jobs under the runtime (issue 15; docs/runtime.md, "Time limits and allocation
// changes"): time limits end real process trees, jobs see their allocation in their
// environment, a running process reads "up" / "down" from its events file, and the example
// training script deepens its model when told "up". Real `schedkit serve`, real processes.
#include <signal.h>

#include <cmath>
#include <regex>

#include "runtime_itest_util.h"

namespace schedkit::runtime::testing {
namespace {

JobId SubmitShell(Server& server, const std::string& text, int gpus, double time_limit_s) {
  pb::SubmitRequest req;
  req.add_command(text);
  req.set_shell(true);
  req.set_gpus(gpus);
  req.set_time_limit_s(time_limit_s);
  Result<JobId> id = server.Submit(req);
  EXPECT_TRUE(id.ok()) << id.status().message();
  return id.ok() ? *id : 0;
}

grpc::Status Resize(Server& server, JobId id, int gpus, int* previous = nullptr) {
  pb::ResizeRequest req;
  req.set_job_id(id);
  req.set_gpus(gpus);
  pb::ResizeResponse resp;
  grpc::Status st = server.client().stub().Resize(server.client().Context().get(), req, &resp);
  if (previous != nullptr) *previous = resp.previous_gpus();
  return st;
}

// Lines "NAME=VALUE" of `text` as a map.
std::map<std::string, std::string> EnvLines(const std::string& text) {
  std::map<std::string, std::string> vars;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) vars[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return vars;
}

TEST(RuntimeAdaptive, TimeLimitEndsTheWholeProcessTreeAsTimeout) {
  const std::string dir = FreshDir("timeout");
  Server server(dir + "/state", {"--gpus", "1", "--grace-s", "1"});
  // A child in its own process group, as a data loader might be: it must end too.
  const JobId id = SubmitShell(
      server, "setsid sleep 300 & echo $! > " + dir + "/child.pid; sleep 300", 1, 1.0);
  ASSERT_TRUE(WaitFor([&] { return server.InState(id, pb::TIMEOUT); }, 30));
  const pb::Job j = server.Get(id);
  EXPECT_EQ(j.message(), "time limit reached: 1 s of run time");
  EXPECT_EQ(j.time_limit_s(), 1.0);
  EXPECT_GE(j.executed_s(), 1.0);
  EXPECT_EQ(EventCount(server.state_dir(), id, "timeout"), 1);
  const pid_t child = static_cast<pid_t>(std::atol(ReadFile(dir + "/child.pid").c_str()));
  ASSERT_GT(child, 0);
  EXPECT_TRUE(WaitFor([&] { return !Running(child); }, 10)) << "the job's child outlived its limit";
  // The slot is free again: the next job runs.
  const JobId next = SubmitShell(server, "true", 1, 0);
  EXPECT_TRUE(WaitFor([&] { return server.InState(next, pb::SUCCEEDED); }, 20));
}

TEST(RuntimeAdaptive, TimeLimitCountsRunTimeOnlyAcrossPreemptionsAndRestarts) {
  const std::string dir = FreshDir("timebudget");
  {
    // Pending time does not count: the limited job waits ~2 s behind the first, then runs
    // 1.5 s of its 3 s.
    Server server(dir + "/fifo", {"--gpus", "1", "--policy", "fifo"});
    const JobId first = SubmitShell(server, "sleep 2", 1, 0);
    const JobId limited = SubmitShell(server, "sleep 1.5", 1, 3);
    ASSERT_TRUE(WaitFor([&] { return server.InState(limited, pb::SUCCEEDED); }, 30));
    EXPECT_LE(server.Get(first).finish_time(), server.Get(limited).first_start_time());
  }
  {
    // Preempted after ~1.3 s of its 4 s (Tiresias demotes it below a newcomer), it resumes
    // with what is left and is ended when its runs add up to the limit.
    Server server(dir + "/tiresias",
                  {"--gpus", "1", "--policy", "tiresias", "--opt", "thresholds=1", "--grace-s", "1"});
    const JobId job = SubmitShell(server, "echo left=$SCHEDKIT_TIME_LEFT_S; sleep 300", 1, 4);
    ASSERT_TRUE(WaitFor([&] { return server.Get(job).executed_s() > 1.3; }, 20));
    const JobId quick = SubmitShell(server, "sleep 0.5", 1, 0);
    ASSERT_TRUE(WaitFor([&] { return server.InState(job, pb::TIMEOUT); }, 30));
    const pb::Job j = server.Get(job);
    EXPECT_EQ(server.Get(quick).state(), pb::SUCCEEDED);
    EXPECT_EQ(j.restart_count(), 1);
    EXPECT_GE(j.executed_s(), 4.0);
    std::smatch m;
    const std::string out = ReadFile(j.stdout_path());
    ASSERT_TRUE(std::regex_search(out, m, std::regex("^left=4\nleft=([0-9.]+)\n$"))) << out;
    const double second = std::stod(m[1]);
    EXPECT_GT(second, 0.0);
    EXPECT_LT(second, 2.7);  // At most 4 - 1.3 s left for the second run.
  }
  {
    // The limit is stored with the job: a SIGKILLed service's successor still enforces it.
    Server server(dir + "/restart", {"--gpus", "1", "--grace-s", "1"});
    const JobId job = SubmitShell(server, "sleep 300", 1, 2);
    ASSERT_TRUE(WaitFor([&] { return server.InState(job, pb::RUNNING); }, 20));
    server.Kill(SIGKILL);
    server.Start();
    EXPECT_EQ(server.Get(job).time_limit_s(), 2.0);
    ASSERT_TRUE(WaitFor([&] { return server.InState(job, pb::TIMEOUT); }, 30));
    EXPECT_GE(server.Get(job).executed_s(), 2.0);
    EXPECT_EQ(EventCount(server.state_dir(), job, "adopted"), 1);
  }
}

TEST(RuntimeAdaptive, JobSeesItsAllocationInItsEnvironment) {
  const std::string dir = FreshDir("allocenv");
  Server server(dir + "/state", {"--gpus", "4"});
  const JobId limited = SubmitShell(server, "env", 2, 90);
  const JobId unlimited = SubmitShell(server, "env", 1, 0);
  ASSERT_TRUE(WaitFor([&] { return server.InState(limited, pb::SUCCEEDED); }, 20));
  ASSERT_TRUE(WaitFor([&] { return server.InState(unlimited, pb::SUCCEEDED); }, 20));
  auto env = EnvLines(ReadFile(server.Get(limited).stdout_path()));
  EXPECT_EQ(env["SCHEDKIT_GPUS"], "2");
  EXPECT_EQ(env["SCHEDKIT_TIME_LIMIT_S"], "90");
  EXPECT_EQ(env["SCHEDKIT_TIME_LEFT_S"], "90");
  const std::string events =
      (std::filesystem::path(server.Get(limited).stdout_path()).parent_path() / "events.jsonl")
          .string();
  EXPECT_EQ(env["SCHEDKIT_EVENTS"], events);
  EXPECT_TRUE(std::filesystem::exists(events));
  env = EnvLines(ReadFile(server.Get(unlimited).stdout_path()));
  EXPECT_EQ(env["SCHEDKIT_GPUS"], "1");
  EXPECT_TRUE(env.count("SCHEDKIT_TIME_LIMIT_S") && env["SCHEDKIT_TIME_LIMIT_S"].empty());
  EXPECT_TRUE(env.count("SCHEDKIT_TIME_LEFT_S") && env["SCHEDKIT_TIME_LEFT_S"].empty());
}

TEST(RuntimeAdaptive, ARunningProcessReadsUpAndDownFromItsEventsFile) {
  const std::string dir = FreshDir("resize");
  Server server(dir + "/state", {"--gpus", "4", "--grace-s", "1"});
  // The job reads its events with the package's reader and exits after a "down".
  const std::string reader =
      "import os, sys\n"
      "sys.path.insert(0, '" + kSource + "/python')\n"
      "from schedkit_adapt.job import Events\n"
      "print('ready', flush=True)\n"
      "for e in Events(os.environ['SCHEDKIT_EVENTS']).follow(poll_s=0.05):\n"
      "    print(e['event'], e['gpus'], e['gpu_ids'], e['time_left_s'] > 0, flush=True)\n"
      "    if e['event'] == 'down': break\n";
  pb::SubmitRequest req;
  for (const char* a : {"/usr/bin/python3", "-c"}) req.add_command(a);
  req.add_command(reader);
  req.set_gpus(1);
  req.set_time_limit_s(120);
  const JobId job = *server.Submit(req);
  const std::string out_path = server.state_dir() + "/jobs/" + std::to_string(job) + "/stdout.log";
  ASSERT_TRUE(WaitFor([&] { return ReadFile(out_path).find("ready") != std::string::npos; }, 30))
      << ReadFile(server.state_dir() + "/jobs/" + std::to_string(job) + "/stderr.log");
  const JobId pending_one = SubmitShell(server, "sleep 300", 4, 0);  // Waits: 3 GPUs are free.

  int previous = 0;
  ASSERT_TRUE(Resize(server, job, 3, &previous).ok());
  EXPECT_EQ(previous, 1);
  pb::Job j = server.Get(job);
  EXPECT_EQ(j.gpus(), 3);
  EXPECT_EQ(j.placement(), "local:0-2");
  EXPECT_EQ(j.state(), pb::RUNNING);

  // Refusals change nothing.
  grpc::Status st = Resize(server, job, 5);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "gpus: 5 requested, the cluster has 4");
  EXPECT_EQ(Resize(server, job, -1).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Resize(server, 999, 1).error_code(), grpc::StatusCode::NOT_FOUND);
  st = Resize(server, pending_one, 1);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(st.error_message(), "job " + std::to_string(pending_one) +
                                    " is PENDING; only a running job can be resized");
  const JobId other = SubmitShell(server, "sleep 300", 1, 0);  // Takes GPU 3.
  ASSERT_TRUE(server.Cancel(pending_one).ok());
  ASSERT_TRUE(WaitFor([&] { return server.InState(other, pb::RUNNING); }, 20));
  st = Resize(server, job, 4);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(st.error_message(), "job " + std::to_string(job) +
                                    ": 1 more GPUs needed, 0 free on node 'local'");

  // The new allocation is stored: a SIGKILLed service's successor re-adopts the job on it.
  server.Kill(SIGKILL);
  server.Start();
  j = server.Get(job);
  EXPECT_EQ(j.state(), pb::RUNNING);
  EXPECT_EQ(j.gpus(), 3);
  EXPECT_EQ(j.placement(), "local:0-2");

  ASSERT_TRUE(Resize(server, job, 2, &previous).ok());
  EXPECT_EQ(previous, 3);
  ASSERT_TRUE(WaitFor([&] { return server.InState(job, pb::SUCCEEDED); }, 20))
      << ReadFile(server.Get(job).stderr_path());
  EXPECT_EQ(ReadFile(out_path), "ready\nup 3 0,1,2 True\ndown 2 0,1 True\n");
  EXPECT_EQ(EventCount(server.state_dir(), job, "resized"), 2);
  ASSERT_TRUE(server.Cancel(other).ok());
}

TEST(RuntimeAdaptive, BadTimeLimitsAreInvalidArgumentNamingTheField) {
  const std::string dir = FreshDir("badlimit");
  Server server(dir + "/state", {"--gpus", "1"});
  const std::string msg = "time_limit_s: must be a finite number >= 0 (0 = no limit)";
  ExpectInvalidSubmits(server, {{[](pb::SubmitRequest* r) { r->set_time_limit_s(-1); }, msg},
                                {[](pb::SubmitRequest* r) { r->set_time_limit_s(NAN); }, msg},
                                {[](pb::SubmitRequest* r) { r->set_time_limit_s(INFINITY); }, msg}});
  const std::string out = dir + "/cli.txt";
  EXPECT_NE(std::system((kCli + " submit --state-dir " + server.state_dir() +
                         " --time-limit 90x -- true > " + out + " 2>&1").c_str()),
            0);
  EXPECT_EQ(ReadFile(out),
            "schedkit: --time-limit '90x': expected seconds >= 0, e.g. 90, 90s, 15m or 2h\n");
  EXPECT_EQ(std::system((kCli + " submit --state-dir " + server.state_dir() +
                         " --time-limit 1.5m -- true > " + out + " 2>&1").c_str()),
            0);
  const JobId id = std::atol(ReadFile(out).c_str());
  EXPECT_EQ(server.Get(id).time_limit_s(), 90.0);
}

TEST(RuntimeAdaptive, TheExampleDeepensItsModelWhenToldUpAndStopsBeforeItsLimit) {
  const std::string dir = FreshDir("example");
  Server server(dir + "/state", {"--gpus", "2", "--grace-s", "1"});
  pb::SubmitRequest req;
  for (const std::string& a : {std::string("/usr/bin/python3"),
                               kSource + "/examples/adaptive_training.py", std::string("--margin"),
                               std::string("20")})
    req.add_command(a);
  req.set_gpus(1);
  // It stops when the next epoch would end less than 20 s before its 30 s limit: a few seconds of
  // training, however slow torch is to load on a busy machine.
  req.set_time_limit_s(30);
  const JobId job = *server.Submit(req);
  const std::string out_path = server.state_dir() + "/jobs/" + std::to_string(job) + "/stdout.log";
  ASSERT_TRUE(WaitFor([&] { return ReadFile(out_path).find("start:") != std::string::npos; }, 30))
      << ReadFile(server.state_dir() + "/jobs/" + std::to_string(job) + "/stderr.log");
  ASSERT_TRUE(Resize(server, job, 2).ok());
  ASSERT_TRUE(WaitFor([&] { return server.Get(job).state() != pb::RUNNING; }, 30));
  const pb::Job j = server.Get(job);
  const std::string out = ReadFile(out_path);
  // It ended on its own before the limit, not by it.
  EXPECT_EQ(j.state(), pb::SUCCEEDED) << out << ReadFile(j.stderr_path());
  EXPECT_NE(out.find("start: model cnn1, 1 GPUs, "), std::string::npos) << out;
  EXPECT_NE(out.find("event up: 2 GPUs, time left "), std::string::npos) << out;
  EXPECT_NE(out.find("decision 1/3"), std::string::npos) << out;
  // cnn1 has 11 layers; each deepening adds an identity layer, a BatchNorm and a ReLU.
  int deepened = 0;
  for (size_t at = out.find("deepened block"); at != std::string::npos;
       at = out.find("deepened block", at + 1))
    ++deepened;
  EXPECT_GE(deepened, 1) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("final accuracy (0\\.[0-9]+) after [0-9]+ "
                                                   "epochs, ([0-9]+) layers")))
      << out;
  EXPECT_EQ(std::stoi(m[2]), 11 + 3 * deepened) << out;
  EXPECT_GT(std::stod(m[1]), 0.5) << out;
}

}  // namespace
}  // namespace schedkit::runtime::testing
