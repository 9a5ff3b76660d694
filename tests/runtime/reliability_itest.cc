// The runtime's guarantees (docs/runtime.md, "Guarantees") against crashes and hostile
// input: the real `schedkit serve`, real processes, gRPC and SQLite, as a crashing service
// or a careless client would meet them. Each test failed before its fix.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <functional>
#include <map>
#include <set>

#include "runtime_itest_util.h"

namespace schedkit::runtime::testing {
namespace {

// The pids a file lists, one a line.
std::vector<pid_t> PidsIn(const std::string& path) {
  std::vector<pid_t> pids;
  std::istringstream in(ReadFile(path));
  for (long p; in >> p;) pids.push_back(static_cast<pid_t>(p));
  return pids;
}

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

int CountRunning(const std::vector<pid_t>& pids) {
  int n = 0;
  for (pid_t p : pids) n += Running(p) ? 1 : 0;
  return n;
}

void KillAll(const std::vector<pid_t>& pids) {
  for (pid_t p : pids) kill(p, SIGKILL);
}

std::vector<pb::Job> AllJobs(Server& server) {
  pb::ListJobsResponse resp;
  EXPECT_TRUE(server.client()
                  .stub()
                  .ListJobs(server.client().Context().get(), pb::ListJobsRequest(), &resp)
                  .ok());
  return {resp.jobs().begin(), resp.jobs().end()};
}

// Runs `command` through the shell; returns its exit status and (in `out`) its stdout
// and stderr.
int Shell(const std::string& command, std::string* out) {
  const std::string file = FreshDir("shell_out") + "/out";
  const int rc = std::system((command + " > " + file + " 2>&1").c_str());
  *out = ReadFile(file);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  return ntohs(addr.sin_port);
}

void SetDrained(Server& server, bool drained) {
  grpc::Status st;
  if (drained) {
    pb::DrainNodeRequest req;
    req.set_node("local");
    pb::DrainNodeResponse resp;
    st = server.client().stub().DrainNode(server.client().Context().get(), req, &resp);
  } else {
    pb::UndrainNodeRequest req;
    req.set_node("local");
    pb::UndrainNodeResponse resp;
    st = server.client().stub().UndrainNode(server.client().Context().get(), req, &resp);
  }
  ASSERT_TRUE(st.ok()) << st.error_message();
}

// At-most-once start: rounds of SIGKILL at different points of a burst of one-GPU starts,
// then every job runs in exactly one live process.
TEST(RuntimeReliability, SigkillDuringBurstsOfStartsNeverRunsAJobTwice) {
  const std::string dir = FreshDir("at_most_once");
  const std::string runs = dir + "/runs";
  std::filesystem::create_directories(runs);
  Server server(dir + "/state", {"--gpus", "64", "--policy", "fifo", "--grace-s", "1"});
  pb::SubmitRequest req;
  req.add_command("echo $$ >> " + runs + "/$SCHEDKIT_JOB_ID; exec sleep 60");
  req.set_shell(true);
  req.set_gpus(1);
  constexpr int kBurst = 10;
  const int kill_after_ms[] = {2, 10, 25, 50, 90, 150};  // Spread over the burst.
  std::vector<JobId> jobs;
  for (int delay : kill_after_ms) {
    SetDrained(server, true);  // The burst is queued, then starts at once on undrain.
    for (int i = 0; i < kBurst; ++i) {
      Result<JobId> id = server.Submit(req);
      ASSERT_TRUE(id.ok()) << id.status().message();
      jobs.push_back(*id);
    }
    SetDrained(server, false);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    server.Kill(SIGKILL);
    server.Start();
  }
  SetDrained(server, false);
  const bool all_running = WaitFor(
      [&] {
        for (JobId id : jobs)
          if (!server.InState(id, pb::RUNNING)) return false;
        return true;
      },
      30);
  std::vector<pid_t> every_pid;
  for (JobId id : jobs) {
    const std::vector<pid_t> pids = PidsIn(runs + "/" + std::to_string(id));
    every_pid.insert(every_pid.end(), pids.begin(), pids.end());
  }
  EXPECT_TRUE(all_running);
  // A process killed with its monitor may take a moment to go; a second copy stays.
  for (JobId id : jobs) {
    const std::vector<pid_t> pids = PidsIn(runs + "/" + std::to_string(id));
    EXPECT_TRUE(WaitFor([&] { return CountRunning(pids) <= 1; }, 5))
        << "job " << id << " runs as " << CountRunning(pids) << " live copies";
    EXPECT_EQ(CountRunning(pids), 1) << "job " << id;
  }
  for (JobId id : jobs) EXPECT_TRUE(server.Cancel(id).ok()) << id;
  EXPECT_TRUE(WaitFor([&] { return CountRunning(every_pid) == 0; }, 10));
  KillAll(every_pid);
}

// The session id of a live process, from /proc/PID/stat (field 6), or 0.
pid_t SessionOf(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  if (paren == std::string::npos || paren + 2 > stat.size()) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string state, ppid, pgrp, session;
  fields >> state >> ppid >> pgrp >> session;
  return static_cast<pid_t>(std::atol(session.c_str()));
}

// Runs `program` (Python; each of its two processes appends its pid to argv[1]) as a job,
// then SIGKILLs the service and the job's monitor, so that nothing of schedkit's is the
// parent of either process; `orphans_are` checks how they left the monitor. Recovery must
// end both before the job starts again, once; cancel must end the new run's processes.
void ExpectRecoveryEndsTheOrphansOfAKilledMonitor(
    const std::string& name, const std::string& program,
    const std::function<void(pid_t monitor, const std::vector<pid_t>&)>& orphans_are) {
  const std::string dir = FreshDir(name);
  const std::string tree = dir + "/tree";
  Server server(dir + "/state", {"--gpus", "1", "--grace-s", "1"});
  const JobId job = server.SubmitArgv({"/usr/bin/python3", "-c", program, tree});
  ASSERT_TRUE(WaitFor([&] { return PidsIn(tree).size() == 2; }, 20));
  const std::vector<pid_t> first = PidsIn(tree);
  const pid_t monitor = MonitorPid(server.Get(job));
  ASSERT_GT(monitor, 0);
  server.Kill(SIGKILL);
  kill(monitor, SIGKILL);  // Only the monitor: the job's processes are orphans now.
  ASSERT_TRUE(WaitFor([&] { return !Running(monitor); }, 5));
  ASSERT_EQ(CountRunning(first), 2);
  orphans_are(monitor, first);
  server.Start();
  EXPECT_TRUE(WaitFor([&] { return CountRunning(first) == 0; }, 10))
      << "orphans of the first run outlived recovery";
  ASSERT_TRUE(WaitFor([&] { return PidsIn(tree).size() == 4; }, 20));
  const pb::Job requeued = server.Get(job);
  EXPECT_EQ(requeued.state(), pb::RUNNING);
  EXPECT_EQ(requeued.restart_count(), 1);
  EXPECT_EQ(EventCount(server.state_dir(), job, "requeued"), 1);
  const std::vector<pid_t> all = PidsIn(tree);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(PidsIn(tree).size(), 4u) << "the job started more than once after recovery";
  EXPECT_EQ(CountRunning(all), 2);
  ASSERT_TRUE(server.Cancel(job).ok());
  EXPECT_TRUE(WaitFor([&] { return CountRunning(all) == 0; }, 5))
      << "a process of the cancelled job (one in a group or session of its own) outlived cancel";
  KillAll(all);
}

// A job's whole process tree (including processes in a process group of their own) ends
// with it: after its monitor is killed while the service is down, recovery ends the
// orphans before it starts the job again; cancel ends them all.
TEST(RuntimeReliability, OrphansOfAKilledMonitorAreEndedAndCancelEndsTheWholeTree) {
  ExpectRecoveryEndsTheOrphansOfAKilledMonitor(
      "orphans",
      "import os, sys, time\n"
      "if os.fork() == 0:\n"
      "    os.setpgid(0, 0)\n"
      "open(sys.argv[1], 'a').write('%d\\n' % os.getpid())\n"
      "time.sleep(60)\n",
      [](pid_t monitor, const std::vector<pid_t>& orphans) {
        for (pid_t p : orphans) EXPECT_EQ(SessionOf(p), monitor);
      });
}

// A process that escapes its monitor altogether (setsid in a child, then a double fork),
// and then its monitor is SIGKILLed while the service is down: init adopts it, it is in
// no session or process tree of schedkit's, and no pid of it is recorded anywhere. It
// still carries the run's SCHEDKIT_JOB_TOKEN, so recovery finds and ends it.
TEST(RuntimeReliability, EscapeeOfAMonitorKilledWhileTheServiceIsDownIsEnded) {
  ExpectRecoveryEndsTheOrphansOfAKilledMonitor(
      "escapee_token",
      "import os, sys, time\n"
      "if os.fork() == 0:\n"
      "    os.setsid()\n"
      "    if os.fork() == 0:\n"
      "        open(sys.argv[1], 'a').write('%d\\n' % os.getpid())\n"
      "        os.execv('/bin/sleep', ['sleep', '60'])\n"
      "    os._exit(0)\n"
      "open(sys.argv[1], 'a').write('%d\\n' % os.getpid())\n"
      "time.sleep(60)\n",
      [](pid_t monitor, const std::vector<pid_t>& orphans) {
        // One left the monitor's session (the former, session-bound search missed it).
        int escaped = 0;
        for (pid_t p : orphans) escaped += SessionOf(p) != monitor ? 1 : 0;
        EXPECT_EQ(escaped, 1);
      });
}

// A process that leaves the job's session (setsid) and drops SCHEDKIT_JOB_ID from its
// environment is still the job's: its monitor is a child subreaper, so the escapee stays
// its descendant. Cancel ends it, and so does the end of the job's main process.
constexpr const char* kSetsidEscapee =
    "import os, sys, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    open(sys.argv[1], 'a').write('%d\\n' % os.getpid())\n"
    "    os.execve('/bin/sleep', ['sleep', '60'], {})\n"
    "open(sys.argv[1], 'a').write('%d\\n' % os.getpid())\n"
    "if sys.argv[2] == 'exit':\n"
    "    while len(open(sys.argv[1]).read().split()) < 2: time.sleep(0.01)\n"
    "    sys.exit(0)\n"
    "time.sleep(60)\n";

TEST(RuntimeReliability, SetsidEscapeesEndWithTheirJobOnCancel) {
  const std::string dir = FreshDir("setsid_cancel");
  const std::string tree = dir + "/tree";
  Server server(dir + "/state", {"--gpus", "1", "--grace-s", "1"});
  const JobId job =
      server.SubmitArgv({"/usr/bin/python3", "-c", kSetsidEscapee, tree, "stay"});
  ASSERT_TRUE(WaitFor([&] { return PidsIn(tree).size() == 2; }, 20));
  const std::vector<pid_t> pids = PidsIn(tree);
  ASSERT_EQ(CountRunning(pids), 2);
  ASSERT_TRUE(server.Cancel(job).ok());
  EXPECT_TRUE(WaitFor([&] { return CountRunning(pids) == 0; }, 5))
      << "a process that called setsid outlived the cancelled job";
  KillAll(pids);
}

TEST(RuntimeReliability, SetsidEscapeesEndWhenTheJobsMainProcessEnds) {
  const std::string dir = FreshDir("setsid_exit");
  const std::string tree = dir + "/tree";
  Server server(dir + "/state", {"--gpus", "1"});
  const JobId job =
      server.SubmitArgv({"/usr/bin/python3", "-c", kSetsidEscapee, tree, "exit"});
  ASSERT_TRUE(WaitFor([&] { return server.InState(job, pb::SUCCEEDED); }, 20));
  const std::vector<pid_t> pids = PidsIn(tree);
  ASSERT_EQ(pids.size(), 2u);
  EXPECT_TRUE(WaitFor([&] { return CountRunning(pids) == 0; }, 5))
      << "a process that called setsid outlived its job";
  KillAll(pids);
}

// Close-on-exec: monitors and jobs hold none of the service's descriptors, so a service
// restarted on the same port after a SIGKILL is the only one accepting connections there.
TEST(RuntimeReliability, RestartOnTheSamePortAcceptsEveryConnection) {
  const std::string dir = FreshDir("same_port");
  const std::string listen = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  Server server(dir + "/state", {"--gpus", "1"}, listen);
  const JobId job = server.SubmitArgv({"sleep", "60"});
  ASSERT_TRUE(WaitFor([&] { return server.InState(job, pb::RUNNING); }, 20));
  server.Kill(SIGKILL);
  server.Start();
  ASSERT_EQ(server.endpoint().address, listen);
  int ok = 0;
  for (int i = 1; i <= 40; ++i) {
    Client fresh(server.endpoint(), i);  // A connection of its own.
    pb::ClusterStatusResponse resp;
    ok += fresh.stub()
              .ClusterStatus(fresh.Context(5).get(), pb::ClusterStatusRequest(), &resp)
              .ok();
  }
  EXPECT_EQ(ok, 40);
  EXPECT_TRUE(server.Cancel(job).ok());
}

TEST(RuntimeReliability, JobsAndMonitorsInheritNoDescriptors) {
  const std::string dir = FreshDir("fds");
  Server server(dir + "/state", {"--gpus", "1"});
  // Every descriptor from 3 up that the job has open, then it waits to be looked at.
  const JobId job = server.SubmitArgv(
      {"/usr/bin/python3", "-c",
       "import os, sys, time\n"
       "open_fds = []\n"
       "for fd in range(3, 1024):\n"
       "    try:\n"
       "        os.fstat(fd)\n"
       "        open_fds.append(fd)\n"
       "    except OSError:\n"
       "        pass\n"
       "print(open_fds, flush=True)\n"
       "time.sleep(60)\n"});
  ASSERT_TRUE(WaitFor([&] { return !ReadFile(server.Get(job).stdout_path()).empty(); }, 20));
  EXPECT_EQ(ReadFile(server.Get(job).stdout_path()), "[]\n");
  const std::string fds = "/proc/" + std::to_string(MonitorPid(server.Get(job))) + "/fd";
  std::set<std::string> monitor_fds;
  for (const auto& e : std::filesystem::directory_iterator(fds)) {
    monitor_fds.insert(e.path().filename().string());
    EXPECT_EQ(std::filesystem::read_symlink(e.path()).string(), "/dev/null") << e.path();
  }
  EXPECT_EQ(monitor_fds, (std::set<std::string>{"0", "1", "2"}));
  EXPECT_TRUE(server.Cancel(job).ok());
}

// A retried submission (same idempotency key) returns the first job, across a crash of the
// service too; the CLI sends a fresh key unless told one.
TEST(RuntimeReliability, RepeatedIdempotencyKeyReturnsTheFirstJob) {
  const std::string dir = FreshDir("idempotency");
  Server server(dir + "/state", {"--gpus", "1"});
  pb::SubmitRequest req;
  req.add_command("true");
  req.set_gpus(1);
  req.set_idempotency_key("retry-1");
  const Result<JobId> first = server.Submit(req);
  const Result<JobId> again = server.Submit(req);
  ASSERT_TRUE(first.ok() && again.ok());
  EXPECT_EQ(*first, *again);
  server.Kill(SIGKILL);
  server.Start();
  EXPECT_EQ(*server.Submit(req), *first);
  EXPECT_EQ(AllJobs(server).size(), 1u);

  const std::string submit = kCli + " submit --state-dir " + server.state_dir() + " ";
  std::string a, b, c;
  ASSERT_EQ(Shell(submit + "--idempotency-key cli-key -- true", &a), 0) << a;
  ASSERT_EQ(Shell(submit + "--idempotency-key cli-key -- true", &b), 0) << b;
  EXPECT_EQ(a, b);
  ASSERT_EQ(Shell(submit + "-- true", &c), 0) << c;
  EXPECT_NE(a, c);
  ASSERT_EQ(Shell(submit + "-- true", &b), 0) << b;
  EXPECT_NE(b, c) << "two submissions without a key got the same job";
  EXPECT_EQ(AllJobs(server).size(), 4u);
}

// `schedkit submit` retries an unreachable service once, with the same key, and waits for it.
TEST(RuntimeReliability, CliSubmitRetriesUntilTheServiceIsBack) {
  const std::string dir = FreshDir("cli_retry");
  const std::string listen = "127.0.0.1:" + std::to_string(FreeLoopbackPort());
  Server server(dir + "/state", {"--gpus", "1"}, listen);
  server.Kill(SIGTERM);  // Its address file stays: the CLI calls a port nobody listens on.
  std::string out;
  int rc = -1;
  std::thread cli([&] {
    rc = Shell(kCli + " submit --state-dir " + server.state_dir() + " -- true", &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  server.Start();
  cli.join();
  EXPECT_EQ(rc, 0) << out;
  EXPECT_EQ(AllJobs(server).size(), 1u);
}

TEST(RuntimeReliability, BadRequestsGetInvalidArgumentNamingTheField) {
  const std::string dir = FreshDir("bad_requests");
  Server server(dir + "/state", {"--gpus", "1"});
  const std::string bad_utf8 = "caf\xc3(";
  const std::vector<BadSubmit> cases = {
      {[&](pb::SubmitRequest* r) { r->set_command(0, bad_utf8); }, "command[0]: not valid UTF-8"},
      {[&](pb::SubmitRequest* r) { r->set_user(bad_utf8); }, "user: not valid UTF-8"},
      {[&](pb::SubmitRequest* r) { r->set_name("\xed\xa0\x80"); }, "name: not valid UTF-8"},
      {[&](pb::SubmitRequest* r) { r->set_working_dir("/tmp/" + bad_utf8); },
       "working_dir: not valid UTF-8"},
      {[&](pb::SubmitRequest* r) { r->set_idempotency_key(bad_utf8); },
       "idempotency_key: not valid UTF-8"},
      {[](pb::SubmitRequest* r) { r->set_mem_gb(1.7e10); }, "mem_gb: must be a number from 0 to"},
      {[](pb::SubmitRequest* r) { r->set_name(std::string(1 << 20, 'n')); },
       "name: 1048576 bytes; at most 256"},
      {[](pb::SubmitRequest* r) { r->add_command(std::string(100000, 'a')); },
       "command: 100004 bytes in all; at most 65536"},
      {[](pb::SubmitRequest* r) { r->set_idempotency_key(std::string(200, 'k')); },
       "idempotency_key: 200 bytes; at most 128"},
      // Issue 21 (grpc_request fuzz seed submit_long_relative_checkpoint_dir): the whole
      // 3 kB value, newline included, was echoed; it is cut at a character boundary.
      {[&](pb::SubmitRequest* r) {
         r->set_checkpoint_dir("x" + Repeat("\u00e9", 100) + "\n" + std::string(3000, 'y'));
       },
       "checkpoint_dir: 'x" + Repeat("\u00e9", 29) + "...' (3202 bytes) is not an absolute path"},
  };
  ExpectInvalidSubmits(server, cases);
  EXPECT_TRUE(AllJobs(server).empty());
  pb::DrainNodeRequest drain;
  drain.set_node(bad_utf8);
  pb::DrainNodeResponse dr;
  grpc::Status s = server.client().stub().DrainNode(server.client().Context().get(), drain, &dr);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "node: not valid UTF-8");
  // A working directory that does not exist is reported as such, not as a missing program.
  pb::SubmitRequest req;
  req.add_command("true");
  req.set_gpus(1);
  req.set_working_dir(dir + "/no-such-dir");
  const JobId job = *server.Submit(req);
  ASSERT_TRUE(WaitFor([&] { return server.InState(job, pb::FAILED); }, 20));
  EXPECT_EQ(server.Get(job).message(), "working_dir '" + dir + "/no-such-dir': no such directory");
}

// ListJobs pages by count and by size; `schedkit jobs` follows the pages.
TEST(RuntimeReliability, ListJobsPagesAndTheCliFollowsThePages) {
  const std::string dir = FreshDir("paging");
  Server server(dir + "/state", {"--gpus", "1"});
  SetDrained(server, true);  // They stay pending.
  std::vector<JobId> jobs;
  for (int i = 0; i < 24; ++i) {  // 24 x 60 KB: more than one 1 MiB page.
    pb::SubmitRequest req;
    req.add_command("true");
    req.add_command(std::string(60000, 'x'));
    req.set_gpus(1);
    jobs.push_back(*server.Submit(req));
  }
  pb::ListJobsRequest list;
  list.set_page_size(5);
  std::vector<JobId> seen;
  int pages = 0;
  do {
    pb::ListJobsResponse resp;
    ASSERT_TRUE(server.client().stub().ListJobs(server.client().Context().get(), list, &resp).ok());
    EXPECT_LE(resp.jobs_size(), 5);
    for (const pb::Job& j : resp.jobs()) seen.push_back(j.id());
    list.set_page_token(resp.next_page_token());
    ++pages;
  } while (!list.page_token().empty() && pages < 100);
  EXPECT_EQ(seen, jobs);
  EXPECT_EQ(pages, 5);
  pb::ListJobsResponse whole;
  ASSERT_TRUE(server.client()
                  .stub()
                  .ListJobs(server.client().Context().get(), pb::ListJobsRequest(), &whole)
                  .ok());
  EXPECT_LT(whole.jobs_size(), 24) << "one page holds more than about 1 MiB";
  EXPECT_FALSE(whole.next_page_token().empty());
  list.set_page_token("x");
  pb::ListJobsResponse bad;
  const grpc::Status s =
      server.client().stub().ListJobs(server.client().Context().get(), list, &bad);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("page_token"), std::string::npos);
  std::string out;
  ASSERT_EQ(Shell(kCli + " jobs --state-dir " + server.state_dir(), &out), 0) << out.substr(0, 500);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 25);  // The header and every job.
}

TEST(RuntimeReliability, RefusesATokenFileOthersCanReadOrAShortToken) {
  const std::string dir = FreshDir("token_file");
  Server server(dir + "/state", {"--gpus", "1"});
  const std::string token = server.endpoint().token;
  const std::string jobs = kCli + " jobs --state-dir " + server.state_dir() + " --token-file ";
  std::ofstream(dir + "/exposed") << token << "\n";
  chmod((dir + "/exposed").c_str(), 0644);
  std::string out;
  EXPECT_NE(Shell(jobs + dir + "/exposed", &out), 0);
  EXPECT_NE(out.find("accessible by group or others (mode 0644); run chmod 600"), std::string::npos)
      << out;
  std::ofstream(dir + "/short") << token.substr(0, 16) << "\n";
  chmod((dir + "/short").c_str(), 0600);
  EXPECT_NE(Shell(jobs + dir + "/short", &out), 0);
  EXPECT_NE(out.find("the token is 16 characters; at least 32 are required"), std::string::npos)
      << out;
  // The service refuses to start on an exposed token file.
  server.Kill(SIGTERM);
  chmod((server.state_dir() + "/token").c_str(), 0640);
  EXPECT_NE(Shell("timeout 20 " + kCli + " serve --state-dir " + server.state_dir(), &out), 0);
  EXPECT_NE(out.find("accessible by group or others (mode 0640)"), std::string::npos) << out;
}

TEST(RuntimeReliability, ASecondServiceOnTheSameStateDirectoryIsRefused) {
  const std::string dir = FreshDir("second_serve");
  Server server(dir + "/state", {"--gpus", "1"});
  std::string out;
  const int rc = Shell("timeout 20 " + kCli + " serve --state-dir " + server.state_dir(), &out);
  EXPECT_NE(rc, 0);
  EXPECT_NE(rc, 124) << "the second service started";
  EXPECT_NE(out.find("another `schedkit serve` (pid "), std::string::npos) << out;
  // The first one still serves.
  EXPECT_EQ(server.ClusterStatus().nodes_size(), 1);
}

TEST(RuntimeReliability, JobsOutputEscapesControlCharacters) {
  const std::string dir = FreshDir("escape");
  Server server(dir + "/state", {"--gpus", "1"});
  SetDrained(server, true);
  server.SubmitArgv({"echo", "\x1b[2J\nFAKE 99 RUNNING\x07"});
  std::string out;
  ASSERT_EQ(Shell(kCli + " jobs --state-dir " + server.state_dir(), &out), 0) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2) << out;
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_NE(out.find("echo \\x1b[2J\\x0aFAKE 99 RUNNING\\x07"), std::string::npos) << out;
}

}  // namespace
}  // namespace schedkit::runtime::testing
