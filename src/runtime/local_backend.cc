// The local backend: jobs are processes on this machine, on a configured number of GPU
// slots. Each job runs under a small monitor process (a fork of the service, in its own
// session) that waits for it and writes its exit status to jobs/<id>/exit_status, so a
// restarted service can re-adopt a job and still learn how it ended. The monitor ignores
// SIGTERM.
//
// At most once: Start forks the monitor held at a gate (a pipe); Launch opens the gate
// after the engine has committed the monitor's id. A monitor whose service died before
// that reads end-of-file and exits without starting the job. Start leaves the file
// jobs/<id>/gated and an opened gate the file jobs/<id>/launched, so recovery tells a held
// monitor (killed; the job is requeued) from a running one (re-adopted, as is the monitor
// of a service from before the gate, which left no `gated`).
//
// The job's processes: the monitor's descendants, and every process whose environment
// carries the run's SCHEDKIT_JOB_TOKEN, a random value per start kept in jobs/<id>/job_token.
// The monitor is a child subreaper (PR_SET_CHILD_SUBREAPER), so a process of the job stays
// its descendant even when it calls setsid, clears its environment and loses its parent:
// orphans reparent to the monitor, not to init. The token reaches a process that escaped
// the monitor altogether (setsid and a double fork, then its monitor killed while the
// service was down, so that it was reparented to init): recovery scans /proc/*/environ for
// it (readable for the service's user). When the job's main process ends, the monitor kills
// what is left under it before it records the exit; Stop and recovery signal the
// descendants and the token's carriers before the monitor's group. Only a process that
// escapes the monitor, drops the token from its environment (execve with another one) and
// whose monitor is killed too (not by schedkit) is out of reach (docs/runtime.md).
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

#include "runtime/auth.h"
#include "runtime/backend.h"

extern char** environ;

namespace schedkit::runtime {
namespace {

namespace fs = std::filesystem;

// Fields 3.. of /proc/PID/stat (after the command name); empty if there is no such
// process or it is a zombie (an adopted monitor's new parent may be slow to reap it).
std::vector<std::string> StatFields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return {};
  const size_t close_paren = line.rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 > line.size()) return {};
  std::istringstream rest(line.substr(close_paren + 2));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  if (fields.empty() || fields[0] == "Z" || fields[0] == "X") return {};
  return fields;
}

// Field 22 of /proc/PID/stat (start time in clock ticks): tells a live process from a
// later one that reuses its pid. Empty if there is no such process or it is a zombie.
std::string StartTimeOf(pid_t pid) {
  const std::vector<std::string> f = StatFields(pid);
  return f.size() > 19 ? f[19] : "";
}

// Every pid /proc lists (some may have ended by the time they are read).
std::vector<pid_t> ProcPids() {
  std::vector<pid_t> pids;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    pids.push_back(static_cast<pid_t>(std::atol(name.c_str())));
  }
  return pids;
}

// The live processes whose environment holds `marker` ("NAME=VALUE"), of session `sid`
// (0: any), except those of process group `skip_group` (0: none).
std::vector<pid_t> MarkedProcesses(const std::string& marker, pid_t sid, pid_t skip_group) {
  std::vector<pid_t> out;
  for (const pid_t pid : ProcPids()) {
    const std::vector<std::string> f = StatFields(pid);
    // Fields 5 and 6: the process group and the session.
    if (f.size() < 4 || (sid != 0 && std::atol(f[3].c_str()) != sid) ||
        std::atol(f[2].c_str()) == skip_group)
      continue;
    std::ifstream env("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    std::string var;
    while (std::getline(env, var, '\0')) {
      if (var == marker) {
        out.push_back(pid);
        break;
      }
    }
  }
  return out;
}

// Writes `text` to `path` through a temporary file and a rename.
Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out.flush()) return Status::IoError(tmp + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    return Status::IoError(path + ": " + std::strerror(errno));
  return Status::Ok();
}

// The live descendants of `root` (not `root` itself), from the parent links in /proc.
std::vector<pid_t> Descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  for (const pid_t pid : ProcPids()) {
    const std::vector<std::string> f = StatFields(pid);
    if (f.size() >= 2) children.emplace(static_cast<pid_t>(std::atol(f[1].c_str())), pid);
  }
  std::vector<pid_t> out;
  std::vector<pid_t> todo = {root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (auto [it, end] = children.equal_range(p); it != end; ++it) {
      out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

// The shortest text that reads back as `v` ("0.5", not "0.500000").
std::string ShortestText(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

bool ParseBackendId(const std::string& id, pid_t* pid, std::string* start) {
  const size_t colon = id.find(':');
  if (colon == std::string::npos) return false;
  *pid = static_cast<pid_t>(std::atol(id.substr(0, colon).c_str()));
  *start = id.substr(colon + 1);
  return *pid > 0;
}

// Async-signal-safe decimal formatting for the monitor (no allocation after fork).
size_t FormatInt(long v, char* buf) {
  char tmp[24];
  size_t n = 0;
  const bool neg = v < 0;
  unsigned long u = neg ? -static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
  do {
    tmp[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u > 0);
  size_t k = 0;
  if (neg) buf[k++] = '-';
  while (n > 0) buf[k++] = tmp[--n];
  return k;
}

// Everything the forked processes need, prepared before fork (nothing allocates after).
struct ExecPlan {
  std::string program;
  std::vector<std::string> args, env;
  std::string dir, stdout_path, stderr_path, exit_path, exit_tmp, gated_path, launched_path;
  std::string token, token_path;  // SCHEDKIT_JOB_TOKEN and the file that keeps it.
  double mem_gb = 0;
  std::vector<int> cores;       // CPU ids to pin the job to.
  std::vector<int> core_slots;  // Their indices in LocalBackend::cores_.
};

// `name` as execve needs it; a relative path is relative to `dir`, where the job runs.
Result<std::string> ResolveProgram(const std::string& name, const std::string& dir) {
  if (name.find('/') != std::string::npos) {
    const std::string path = name[0] == '/' || dir.empty() ? name : dir + "/" + name;
    if (access(path.c_str(), X_OK) != 0)
      return Status::InvalidArgument("'" + name + "': " + std::strerror(errno));
    return name;
  }
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    const std::string candidate = (d.empty() ? "." : d) + "/" + name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return Status::InvalidArgument("'" + name + "': not found in PATH");
}

// What the job's process reports on the exec-error pipe when it cannot start.
struct StartError {
  enum Step : int { kLogs, kWorkingDir, kExec } step;
  int error;
};

[[noreturn]] void FailStart(int err_fd, StartError::Step step) {
  const StartError e{step, errno};
  (void)!write(err_fd, &e, sizeof(e));
  _exit(127);
}

// The parent pid in /proc/<pid>/stat, or 0 (no such process, or a zombie). Async-signal-
// safe: the monitor calls it.
pid_t LiveParentOf(const char* pid_text) {
  char path[64] = "/proc/";
  size_t n = 6;
  for (const char* c = pid_text; *c != '\0' && n < sizeof(path) - 6; ++c) path[n++] = *c;
  for (const char* c = "/stat"; *c != '\0'; ++c) path[n++] = *c;
  path[n] = '\0';
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[512];
  const ssize_t got = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (got <= 0) return 0;
  const char* paren = nullptr;  // The command name may hold ')': the last one ends it.
  for (ssize_t i = 0; i < got; ++i) {
    if (buf[i] == ')') paren = buf + i;
  }
  const char* end = buf + got;
  if (paren == nullptr || end - paren < 5 || paren[2] == 'Z' || paren[2] == 'X') return 0;
  pid_t ppid = 0;
  for (const char* c = paren + 4; c < end && *c >= '0' && *c <= '9'; ++c) ppid = ppid * 10 + (*c - '0');
  return ppid;
}

// The monitor, a child subreaper, after the job's main process ended: every process left
// under it is its child or becomes one when its parent dies. Kills them until none is
// left. Async-signal-safe (the monitor is a fork of a multithreaded process): raw
// getdents64 on /proc, no allocation.
void KillChildren() {
  struct Dirent64 {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[1];
  };
  const pid_t self = getpid();
  for (;;) {
    bool any = false;
    const int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return;
    alignas(8) char buf[8192];
    long n;
    while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
      for (long off = 0; off < n;) {
        const auto* d = reinterpret_cast<const Dirent64*>(buf + off);
        off += d->reclen;
        if (d->name[0] < '0' || d->name[0] > '9') continue;
        if (LiveParentOf(d->name) != self) continue;
        pid_t pid = 0;
        for (const char* c = d->name; *c != '\0'; ++c) pid = pid * 10 + (*c - '0');
        kill(pid, SIGKILL);
        any = true;
      }
    }
    close(dir);
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (!any) return;
    const timespec pause{0, 1000000};  // Let the killed die and their children reparent.
    nanosleep(&pause, nullptr);
  }
}

// Closes every descriptor from 3 on except `keep_a` < `keep_b` (async-signal-safe).
void CloseAllBut(int keep_a, int keep_b) {
  const unsigned a = static_cast<unsigned>(keep_a), b = static_cast<unsigned>(keep_b);
  if (a > 3) close_range(3, a - 1, 0);
  if (b > a + 1) close_range(a + 1, b - 1, 0);
  close_range(b + 1, ~0U, 0);
}

[[noreturn]] void RunJob(const ExecPlan& plan, char* const* argv, char* const* envp, int err_fd) {
  signal(SIGTERM, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  sigset_t none;  // `schedkit serve` blocks SIGINT/SIGTERM to sigwait them; the job must not.
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Close-on-exec: the job gets these as 0, 1 and 2 only (dup2 clears the flag).
  const int out = open(plan.stdout_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int err = open(plan.stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || err < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
    FailStart(err_fd, StartError::kLogs);
  if (!plan.dir.empty() && chdir(plan.dir.c_str()) != 0) FailStart(err_fd, StartError::kWorkingDir);
  if (plan.mem_gb > 0) {
    const rlim_t bytes = static_cast<rlim_t>(plan.mem_gb * 1024.0 * 1024.0 * 1024.0);
    rlimit lim{bytes, bytes};
    setrlimit(RLIMIT_AS, &lim);
  }
  if (!plan.cores.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : plan.cores) CPU_SET(c, &set);
    sched_setaffinity(0, sizeof(set), &set);  // Best effort.
  }
  execve(argv[0], argv, envp);
  FailStart(err_fd, StartError::kExec);
}

// The monitor: waits at the gate (`gate_fd`) for Launch, then runs the job and records
// how it ended. It keeps none of the service's descriptors (listening socket, store,
// logs, its lock): its stdio is /dev/null.
[[noreturn]] void RunMonitor(const ExecPlan& plan, char* const* argv, char* const* envp,
                             int gate_fd, int err_fd) {
  setsid();  // Own session and process group: survives the service, takes group signals.
  signal(SIGTERM, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  const int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, 0);
    dup2(null, 1);
    dup2(null, 2);
  }
  CloseAllBut(std::min(gate_fd, err_fd), std::max(gate_fd, err_fd));
  char go = 0;
  ssize_t got;
  while ((got = read(gate_fd, &go, 1)) < 0 && errno == EINTR) {
  }
  if (got != 1) _exit(0);  // The service died before committing the start: never run.
  close(gate_fd);
  // Orphans of the job, in any session, reparent to the monitor (KillChildren ends them).
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const int launched = open(plan.launched_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (launched >= 0) close(launched);
  const pid_t job = fork();
  if (job < 0) _exit(127);
  if (job == 0) RunJob(plan, argv, envp, err_fd);
  close(err_fd);
  int status = 0;
  while (waitpid(job, &status, 0) < 0 && errno == EINTR) {
  }
  KillChildren();  // No process of the job outlives its main process.
  const long code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  char buf[32];
  size_t n = FormatInt(code, buf);
  buf[n++] = '\n';
  const int fd = open(plan.exit_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    (void)!write(fd, buf, n);
    close(fd);
    rename(plan.exit_tmp.c_str(), plan.exit_path.c_str());
  }
  _exit(0);
}

class LocalBackend final : public Backend {
 public:
  // `cluster`: the nodes that this host's GPU slots are grouped into (--cluster), or none
  // for one node "local" of o.gpus slots.
  LocalBackend(const RuntimeOptions& o, ClusterSpec cluster) : options_(o) {
    if (cluster.nodes.empty()) {
      NodeSpec node;
      node.gpus = o.gpus;
      node.gpu_type = "local";
      cluster.source = "local";
      cluster.nodes.push_back(node);
      names_.push_back("local");
    } else {
      for (size_t i = 0; i < cluster.nodes.size(); ++i) names_.push_back("n" + std::to_string(i));
    }
    for (NodeSpec& node : cluster.nodes) {
      node.cpus = 0;  // Not packed by policies; enforced per job.
      node.mem_gb = 0;
    }
    cluster_ = std::move(cluster);
    // Jobs are pinned within the cores the service itself may use.
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) {
      for (int c = 0; c < CPU_SETSIZE; ++c) {
        if (CPU_ISSET(c, &allowed)) cores_.push_back(c);
      }
    }
    cores_in_use_.assign(cores_.size(), 0);
  }

  std::string Name() const override { return "local"; }
  bool SharesGpus() const override { return true; }
  // CUDA_VISIBLE_DEVICES is fixed at exec; the events file tells the job its new GPUs.
  std::string ResizeRefusal() const override { return ""; }
  const ClusterSpec& Cluster() const override { return cluster_; }
  const std::vector<std::string>& NodeNames() const override { return names_; }

  Result<std::string> Start(const JobRecord& job, const Placement& placement) override {
    Result<ExecPlan> plan = Plan(job, placement);
    if (!plan.ok()) return plan.status();
    std::vector<char*> argv, envp;
    for (std::string& a : plan->args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : plan->env) envp.push_back(e.data());
    envp.push_back(nullptr);
    // Before the job can run: recovery finds its processes by this token.
    if (Status st = WriteFileAtomically(plan->token_path, plan->token + "\n"); !st.ok())
      return st;
    int err_pipe[2], gate[2];
    if (pipe2(err_pipe, O_CLOEXEC) != 0)
      return Status::IoError(std::string("pipe: ") + std::strerror(errno));
    if (pipe2(gate, O_CLOEXEC) != 0) {
      close(err_pipe[0]);
      close(err_pipe[1]);
      return Status::IoError(std::string("pipe: ") + std::strerror(errno));
    }
    std::error_code ec;
    fs::remove(plan->exit_path, ec);
    fs::remove(plan->launched_path, ec);
    std::ofstream(plan->gated_path).flush();
    const pid_t monitor = fork();
    if (monitor == 0) RunMonitor(*plan, argv.data(), envp.data(), gate[0], err_pipe[1]);
    close(gate[0]);
    close(err_pipe[1]);
    if (monitor < 0) {
      close(gate[1]);
      close(err_pipe[0]);
      return Status::IoError(std::string("fork: ") + std::strerror(errno));
    }
    held_[job.id] = Held{monitor, gate[1], err_pipe[0], plan->program, plan->dir,
                         plan->core_slots};
    return std::to_string(monitor) + ":" + StartTimeOf(monitor);
  }

  Status Launch(const JobRecord& job) override {
    auto it = held_.find(job.id);
    if (it == held_.end())
      return Status::Internal("job " + std::to_string(job.id) + ": launched without a start");
    const Held held = std::move(it->second);
    held_.erase(it);
    const char go = 1;
    (void)!write(held.gate_fd, &go, 1);
    close(held.gate_fd);
    StartError failed{};
    ssize_t n;
    while ((n = read(held.err_fd, &failed, sizeof(failed))) < 0 && errno == EINTR) {
    }
    close(held.err_fd);
    if (n > 0) {
      Reap(held.monitor);
      return Status::InvalidArgument(StartErrorText(failed, held));
    }
    cores_of_[job.id] = held.core_slots;
    for (int i : held.core_slots) cores_in_use_[i] = 1;
    return Status::Ok();
  }

  Status Preempt(const JobRecord& job) override { return Stop(job); }
  Status Cancel(const JobRecord& job) override { return Stop(job); }

  std::vector<JobExit> Poll(const std::vector<const JobRecord*>& running) override {
    std::vector<JobExit> out;
    for (const JobRecord* j : running) {
      pid_t pid;
      std::string start;
      if (!ParseBackendId(j->backend_id, &pid, &start) || Alive(pid, start)) continue;
      SignalLeftovers(*j, pid, false, SIGKILL);  // Processes the job left behind end with it.
      out.push_back(ExitOf(*j));
      FreeCores(j->id);
    }
    return out;
  }

  Liveness Adopt(const JobRecord& job, JobExit* exit) override {
    pid_t pid;
    std::string start;
    if (!ParseBackendId(job.backend_id, &pid, &start)) return Liveness::kLost;
    const std::string dir = JobDir(options_.state_dir, job.id);
    const bool held = fs::exists(dir + "/gated") && !fs::exists(dir + "/launched");
    if (Alive(pid, start) && !held) return Liveness::kAlive;
    // Held at the gate by a service that died, or the job outlived its monitor: end it all.
    const bool alive = Alive(pid, start);
    SignalLeftovers(job, pid, alive, SIGKILL);
    if (alive) kill(-pid, SIGKILL);
    if (!fs::exists(dir + "/exit_status")) return Liveness::kLost;
    *exit = ExitOf(job);
    return Liveness::kEnded;
  }

 private:
  Result<ExecPlan> Plan(const JobRecord& job, const Placement& placement) {
    ExecPlan plan;
    const std::string dir = JobDir(options_.state_dir, job.id);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec && !job.checkpoint_dir.empty()) fs::create_directories(job.checkpoint_dir, ec);
    if (ec) return Status::IoError(dir + ": " + ec.message());
    plan.stdout_path = dir + "/stdout.log";
    plan.stderr_path = dir + "/stderr.log";
    plan.exit_path = dir + "/exit_status";
    plan.exit_tmp = dir + "/exit_status.tmp";
    plan.gated_path = dir + "/gated";
    plan.token_path = dir + "/job_token";
    plan.token = RandomHex(32);  // 128 bits: the run's SCHEDKIT_JOB_TOKEN.
    plan.launched_path = dir + "/launched";
    plan.dir = job.working_dir;
    if (!plan.dir.empty() && !fs::is_directory(plan.dir, ec))
      return Status::InvalidArgument("working_dir '" + plan.dir + "': no such directory");
    plan.mem_gb = job.mem_gb;
    if (job.shell) {
      plan.args = {"/bin/sh", "-c", job.command.at(0)};
    } else {
      Result<std::string> program = ResolveProgram(job.command.at(0), plan.dir);
      if (!program.ok()) return program.status();
      plan.args = job.command;
      plan.args[0] = *program;
    }
    plan.program = job.command.at(0);
    const std::string gpus = GpuSlots(placement, cluster_);
    std::vector<std::string> ours = {
        "SCHEDKIT_JOB_ID=" + std::to_string(job.id),
        "SCHEDKIT_JOB_TOKEN=" + plan.token,
        "SCHEDKIT_RESTART_COUNT=" + std::to_string(job.restart_count),
        "SCHEDKIT_CHECKPOINT_DIR=" + job.checkpoint_dir,
        "CUDA_VISIBLE_DEVICES=" + gpus,
        "SCHEDKIT_GROUP=" + std::to_string(job.group),
        "SCHEDKIT_GROUP_SIZE=" + std::to_string(job.group_size),
        "SCHEDKIT_RATE=" + ShortestText(job.rate),
        std::string("SCHEDKIT_GUEST=") + (job.guest ? "1" : "0")};
    for (std::string& e : AllocationEnv(options_.state_dir, job, placement.gpus(),
                                        PlacementGpuTypes(placement, cluster_)))
      ours.push_back(std::move(e));
    std::ofstream(EventsPath(options_.state_dir, job.id), std::ios::app).flush();  // Readable at once.
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string_view var(*e);
      const bool replaced = std::any_of(ours.begin(), ours.end(), [&](const std::string& o) {
        return var.substr(0, var.find('=') + 1) == o.substr(0, o.find('=') + 1);
      });
      if (!replaced) plan.env.emplace_back(*e);
    }
    plan.env.insert(plan.env.end(), ours.begin(), ours.end());
    // CPU affinity: the lowest free cores, when there are enough of them.
    std::vector<int> cores;
    for (size_t i = 0; i < cores_.size() && static_cast<int>(cores.size()) < job.cpus; ++i) {
      if (!cores_in_use_[i]) cores.push_back(static_cast<int>(i));
    }
    if (static_cast<int>(cores.size()) == job.cpus) {
      for (int i : cores) plan.cores.push_back(cores_[i]);
      plan.core_slots = std::move(cores);
    }
    return plan;
  }

  // True iff the monitor `pid` still runs (reaping it if it is our child and has ended).
  static bool Alive(pid_t pid, const std::string& start) {
    int status;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return false;
    if (r == 0) return true;
    return kill(pid, 0) == 0 && !start.empty() && StartTimeOf(pid) == start;  // Not ours: adopted.
  }

  static void Reap(pid_t pid) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }

  JobExit ExitOf(const JobRecord& job) const {
    JobExit e{job.id, 0, ""};
    std::ifstream in(JobDir(options_.state_dir, job.id) + "/exit_status");
    if (!(in >> e.exit_code)) {
      e.exit_code = 128 + SIGKILL;
      e.message = "the job's monitor ended without an exit status (killed)";
    } else if (e.exit_code != 0) {
      e.message = e.exit_code > 128 ? "killed by signal " + std::to_string(e.exit_code - 128)
                                    : "exited with status " + std::to_string(e.exit_code);
    }
    return e;
  }

  // Held at the gate: closing it ends the monitor, which never starts the job.
  bool DropHeld(JobId id) {
    auto it = held_.find(id);
    if (it == held_.end()) return false;
    close(it->second.gate_fd);
    close(it->second.err_fd);
    Reap(it->second.monitor);
    held_.erase(it);
    return true;
  }

  // The job's processes: all of them, or (`outside_group`) those outside its monitor's
  // process group, which a signal to the group reaches (no process gets a signal twice).
  // `monitor_alive`: the monitor (its start time checked) still runs, so its descendants
  // are the job's, a setsid'd one included; a dead monitor's pid may be another's now.
  void SignalLeftovers(const JobRecord& job, pid_t monitor, bool monitor_alive, int sig,
                       bool outside_group = false) const {
    std::set<pid_t> pids;
    if (monitor_alive) {
      for (pid_t p : Descendants(monitor)) {
        if (!outside_group || getpgid(p) != monitor) pids.insert(p);
      }
    }
    // Every process that carries the run's token, wherever it is; a run started before
    // tokens (no job_token file): those of the monitor's session with the job's id.
    std::ifstream in(JobDir(options_.state_dir, job.id) + "/job_token");
    std::string token;
    const std::vector<pid_t> marked =
        std::getline(in, token) && !token.empty()
            ? MarkedProcesses("SCHEDKIT_JOB_TOKEN=" + token, 0, outside_group ? monitor : 0)
            : MarkedProcesses("SCHEDKIT_JOB_ID=" + std::to_string(job.id), monitor,
                              outside_group ? monitor : 0);
    pids.insert(marked.begin(), marked.end());
    for (pid_t p : pids) kill(p, sig);
  }

  // SIGTERM to the job's processes, SIGKILL after the grace period.
  Status Stop(const JobRecord& job) {
    pid_t pid;
    std::string start;
    if (DropHeld(job.id) || !ParseBackendId(job.backend_id, &pid, &start)) return Status::Ok();
    FreeCores(job.id);
    if (!Alive(pid, start)) {
      SignalLeftovers(job, pid, false, SIGKILL);
      return Status::Ok();
    }
    kill(-pid, SIGTERM);
    SignalLeftovers(job, pid, true, SIGTERM, /*outside_group=*/true);
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::duration<double>(options_.grace_s);
    while (Clock::now() < deadline) {
      // The monitor ignores SIGTERM: the job is gone once the monitor has written its exit.
      if (!Alive(pid, start)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // Before the monitor dies and its orphans go to init.
    SignalLeftovers(job, pid, Alive(pid, start), SIGKILL);
    kill(-pid, SIGKILL);
    for (int i = 0; i < 500 && Alive(pid, start); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return Alive(pid, start)
               ? Status::Internal("job " + std::to_string(job.id) + ": still alive after SIGKILL")
               : Status::Ok();
  }

  void FreeCores(JobId id) {
    auto it = cores_of_.find(id);
    if (it == cores_of_.end()) return;
    for (int c : it->second) cores_in_use_[c] = 0;
    cores_of_.erase(it);
  }

  // A monitor between Start and Launch.
  struct Held {
    pid_t monitor;
    int gate_fd, err_fd;  // Write end of its gate; read end of its exec-error pipe.
    std::string program, dir;
    std::vector<int> core_slots;
  };

  static std::string StartErrorText(const StartError& e, const Held& h) {
    const std::string why = std::strerror(e.error);
    switch (e.step) {
      case StartError::kWorkingDir:
        return "working_dir '" + h.dir + "': " + why;
      case StartError::kLogs:
        return "cannot open the job's logs or /dev/null: " + why;
      case StartError::kExec:
        break;
    }
    return "cannot start '" + h.program + "': " + why;
  }

  RuntimeOptions options_;
  ClusterSpec cluster_;
  std::vector<std::string> names_;
  std::vector<int> cores_;          // CPU ids the service may run on.
  std::vector<char> cores_in_use_;  // Parallel to cores_.
  std::map<JobId, std::vector<int>> cores_of_;
  std::map<JobId, Held> held_;
};

}  // namespace

Result<std::unique_ptr<Backend>> MakeLocalBackend(const RuntimeOptions& options) {
  if (options.gpus < 0 || options.gpus > kMaxGpusPerNode) {
    return Status::InvalidArgument("--gpus " + std::to_string(options.gpus) + ": expected 0.." +
                                   std::to_string(kMaxGpusPerNode));
  }
  ClusterSpec cluster;
  if (!options.cluster.empty()) {
    Result<ClusterSpec> loaded = LoadClusterSpec(options.cluster);
    if (!loaded.ok()) return Status::InvalidArgument("--cluster: " + loaded.status().message());
    cluster = std::move(loaded).value();
  }
  return std::unique_ptr<Backend>(std::make_unique<LocalBackend>(options, std::move(cluster)));
}

}  // namespace schedkit::runtime
