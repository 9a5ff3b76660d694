// Helpers for the runtime integration tests: the real `schedkit serve` as a child process,
// a real gRPC client, and polling with a deadline (never asserting on durations).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/backend.h"
#include "runtime/client.h"
#include "runtime/engine.h"
#include "runtime/store.h"
#include "schedkit/policy.h"

namespace schedkit::runtime::testing {

namespace pb = ::schedkit::v1;

inline const std::string kCli = SCHEDKIT_CLI;
inline const std::string kSource = SCHEDKIT_SOURCE_DIR;

// Runs `schedkit ARGS` (a shell-quoted text) and returns its exit status and its stdout and
// stderr together.
inline std::pair<int, std::string> RunCli(const std::string& args) {
  const std::string cmd = "'" + kCli + "' " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return {-1, ""};
  std::string out;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Polls `done` every 50 ms until it holds or `timeout_s` passes; returns whether it held.
inline bool WaitFor(const std::function<bool()>& done, double timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh directory under the test temp dir, apart from concurrent runs of the suite.
inline std::string FreshDir(const std::string& name) {
  const std::string dir =
      ::testing::TempDir() + "/schedkit_runtime_" + std::to_string(getpid()) + "_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// True iff process `pid` exists and is not a zombie.
inline bool Running(pid_t pid) {
  if (kill(pid, 0) != 0) return false;
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

// Events of `kind` the service's store holds for `job`; -1 if it cannot be read.
inline int64_t EventCount(const std::string& state_dir, JobId job, const std::string& kind) {
  auto store = Store::Open(state_dir + "/schedkit.db");
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (!store.ok()) return -1;
  auto n = (*store)->CountEvents(job, kind);
  return n.ok() ? *n : -1;
}

// The pid of a local job's monitor (its backend id is "pid:starttime").
inline pid_t MonitorPid(const pb::Job& job) {
  return static_cast<pid_t>(std::atol(job.backend_id().c_str()));
}

// `schedkit serve --state-dir DIR ARGS...` on `listen` (default: a free loopback port).
class Server {
 public:
  Server(std::string state_dir, std::vector<std::string> args,
         std::string listen = "127.0.0.1:0")
      : state_dir_(std::move(state_dir)), args_(std::move(args)), listen_(std::move(listen)) {
    Start();
  }
  ~Server() { Kill(SIGTERM); }

  void Start() {
    std::filesystem::remove(state_dir_ + "/address");
    std::vector<std::string> argv = {kCli, "serve", "--state-dir", state_dir_, "--listen", listen_};
    argv.insert(argv.end(), args_.begin(), args_.end());
    const std::filesystem::path state(state_dir_);
    const std::string log =
        (state.parent_path() / ("serve-" + state.filename().string() + ".log")).string();
    std::vector<char*> a;
    for (std::string& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    pid_ = fork();
    if (pid_ == 0) {  // Only async-signal-safe calls until exec.
      const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
      }
      execv(a[0], a.data());
      _exit(127);
    }
    ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(state_dir_ + "/address"); }, 20))
        << "schedkit serve did not start; see " << log << ":\n"
        << ReadFile(log);
    Result<Endpoint> e = ResolveEndpoint(state_dir_, "", "");
    ASSERT_TRUE(e.ok()) << e.status().message();
    endpoint_ = *e;
    client_ = std::make_unique<Client>(endpoint_);
  }

  // Sends `sig` and reaps the service (SIGKILL: a crash; SIGTERM: a clean stop).
  void Kill(int sig) {
    if (pid_ <= 0) return;
    kill(pid_, sig);
    waitpid(pid_, nullptr, 0);
    pid_ = 0;
  }

  Client& client() { return *client_; }
  const Endpoint& endpoint() const { return endpoint_; }
  const std::string& state_dir() const { return state_dir_; }

  Result<JobId> Submit(pb::SubmitRequest req) {
    if (req.working_dir().empty()) req.set_working_dir(state_dir_);
    pb::SubmitResponse resp;
    grpc::Status st = client_->stub().Submit(client_->Context().get(), req, &resp);
    if (!st.ok()) return Status::Internal(st.error_message());
    return resp.job_id();
  }
  // argv job; `gpus` GPUs.
  JobId SubmitArgv(std::vector<std::string> argv, int gpus = 1, std::string checkpoint_dir = "") {
    pb::SubmitRequest req;
    for (const std::string& a : argv) req.add_command(a);
    req.set_gpus(gpus);
    req.set_checkpoint_dir(checkpoint_dir);
    Result<JobId> id = Submit(req);
    EXPECT_TRUE(id.ok()) << id.status().message();
    return id.ok() ? *id : 0;
  }
  pb::Job Get(JobId id) {
    pb::GetJobRequest req;
    req.set_job_id(id);
    pb::Job job;
    grpc::Status st = client_->stub().GetJob(client_->Context().get(), req, &job);
    EXPECT_TRUE(st.ok()) << st.error_message();
    return job;
  }
  bool InState(JobId id, pb::JobState s) { return Get(id).state() == s; }
  pb::ClusterStatusResponse ClusterStatus() {
    pb::ClusterStatusResponse status;
    grpc::Status st =
        client_->stub().ClusterStatus(client_->Context().get(), pb::ClusterStatusRequest(), &status);
    EXPECT_TRUE(st.ok()) << st.error_message();
    return status;
  }
  grpc::Status Cancel(JobId id) {
    pb::CancelRequest req;
    req.set_job_id(id);
    pb::CancelResponse resp;
    return client_->stub().Cancel(client_->Context(60).get(), req, &resp);
  }

 private:
  std::string state_dir_;
  std::vector<std::string> args_;
  std::string listen_;
  pid_t pid_ = 0;
  Endpoint endpoint_;
  std::unique_ptr<Client> client_;
};

// A submission made malformed by `edit`, and what the INVALID_ARGUMENT message must say.
struct BadSubmit {
  std::function<void(pb::SubmitRequest*)> edit;
  std::string message;
};

// Each case, applied to a valid one-GPU `true`, is refused with INVALID_ARGUMENT and its message.
inline void ExpectInvalidSubmits(Server& server, const std::vector<BadSubmit>& cases) {
  for (const BadSubmit& c : cases) {
    pb::SubmitRequest req;
    req.add_command("true");
    req.set_gpus(1);
    c.edit(&req);
    pb::SubmitResponse resp;
    grpc::Status s = server.client().stub().Submit(server.client().Context().get(), req, &resp);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.message;
    EXPECT_NE(s.error_message().find(c.message), std::string::npos) << s.error_message();
  }
}

// An engine in-process (no gRPC) on a fresh state directory `name` under the test temp dir,
// with `options` (its state_dir, poll_s 0.01 and grace_s 1 are set here) and `policy`.
inline std::unique_ptr<Engine> StartEngineWith(const std::string& name, RuntimeOptions options,
                                               std::unique_ptr<Policy> policy) {
  const std::string dir = ::testing::TempDir() + "/runtime_engine_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  options.state_dir = dir;
  options.poll_s = 0.01;
  options.grace_s = 1;
  Result<std::unique_ptr<Backend>> backend = MakeLocalBackend(options);
  EXPECT_TRUE(backend.ok()) << backend.status().message();
  Result<std::unique_ptr<Store>> store = Store::Open(dir + "/schedkit.db");
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (!backend.ok() || !store.ok()) return nullptr;
  Result<std::unique_ptr<Engine>> engine = Engine::Start(
      options, std::move(store).value(), std::move(backend).value(), std::move(policy));
  EXPECT_TRUE(engine.ok()) << engine.status().message();
  return engine.ok() ? std::move(engine).value() : nullptr;
}

// `schedkit submit --state-dir STATE ARGS` fails, printing one line that holds `message`.
inline void ExpectCliSubmitRefused(const std::string& state, const std::string& args,
                                   const std::string& message) {
  auto [rc, out] = RunCli("submit --state-dir '" + state + "' " + args);
  EXPECT_NE(rc, 0) << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  EXPECT_NE(out.find(message), std::string::npos) << out;
}

}  // namespace schedkit::runtime::testing
