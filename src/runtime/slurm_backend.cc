// The Slurm backend: Slurm runs the jobs, schedkit decides. A job is submitted held
// (sbatch --hold) on the nodes its placement names and released by Launch, once the
// engine has committed it; preemption is
// `scontrol requeuehold` (Slurm signals the job and keeps it, held, for the next start,
// which moves it to the new nodes, clears the requeue delay and releases it). State is
// read back with squeue, and scontrol show job for jobs that have left the queue.
// No held job stays queued forever: every submission carries the state directory's tag
// as its Slurm comment; a start or release that fails cancels its held job, and recovery
// cancels tagged jobs that no record names (the service died between sbatch and
// recording the id; EndUnrecorded).
// Recipe and verified behaviour: ../shared/docs/reference/slurm-single-host.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "runtime/backend.h"

namespace schedkit::runtime {
namespace {

namespace fs = std::filesystem;

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// "Key=Value" fields of `scontrol show job -o`.
std::map<std::string, std::string> ParseFields(const std::string& line) {
  std::map<std::string, std::string> f;
  std::istringstream in(line);
  std::string tok;
  while (in >> tok) {
    const size_t eq = tok.find('=');
    if (eq != std::string::npos) f[tok.substr(0, eq)] = tok.substr(eq + 1);
  }
  return f;
}

Status Check(const Result<CommandOutput>& r, const std::string& what) {
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) return Status::Internal(what + " failed: " + Trim(r->err + r->out));
  return Status::Ok();
}

// "schedkit-state-" and the FNV-1a hash of the absolute state directory: names this
// service's submissions among all of Slurm's (other services, other users), stable across
// restarts and builds.
std::string StateTag(const std::string& state_dir) {
  std::error_code ec;
  const std::string path = fs::absolute(state_dir, ec).lexically_normal().string();
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : path) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(h));
  return std::string("schedkit-state-") + hex;
}

class SlurmBackend final : public Backend {
 public:
  SlurmBackend(const RuntimeOptions& o, ClusterSpec cluster, std::vector<std::string> names)
      : options_(o),
        cluster_(std::move(cluster)),
        names_(std::move(names)),
        tag_(StateTag(o.state_dir)) {}

  std::string Name() const override { return "slurm"; }
  bool SharesGpus() const override { return false; }  // --gres books GPUs per job.
  std::string ResizeRefusal() const override {
    return "the slurm backend cannot change a running job's GPUs (a Slurm allocation is fixed "
           "once granted)";
  }
  const ClusterSpec& Cluster() const override { return cluster_; }
  const std::vector<std::string>& NodeNames() const override { return names_; }

  Result<std::string> Start(const JobRecord& job, const Placement& placement) override {
    std::string nodes;
    int max_gpus = 0;
    for (const NodeShare& s : placement.shares) {
      nodes += (nodes.empty() ? "" : ",") + names_.at(s.node);
      max_gpus = std::max(max_gpus, s.gpus());
    }
    const std::string n = std::to_string(placement.shares.size());
    if (!job.backend_id.empty()) {  // Preempted earlier: held in Slurm; move it, Launch releases.
      const std::string& id = job.backend_id;
      Status moved = Check(
          RunCommand({"scontrol", "update", "jobid=" + id, "nodelist=" + nodes, "numnodes=" + n}),
          "scontrol update nodelist");
      if (moved.ok()) {
        moved = Check(RunCommand({"scontrol", "update", "jobid=" + id, "starttime=now"}),
                      "scontrol update starttime");
      }
      if (moved.ok() && job.time_limit_s > 0) {  // What is left of the limit, as at sbatch.
        moved = Check(RunCommand({"scontrol", "update", "jobid=" + id,
                                  "timelimit=" + SlurmMinutes(job)}),
                      "scontrol update timelimit");
      }
      if (moved.ok()) moved = WriteRunFiles(job, placement);
      if (!moved.ok()) {
        RunCommand({"scancel", id});  // The engine fails the job: nothing of it stays queued.
        return moved;
      }
      return id;
    }
    const std::string dir = JobDir(options_.state_dir, job.id);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!ec && !job.checkpoint_dir.empty()) fs::create_directories(job.checkpoint_dir, ec);
    if (ec) return Status::IoError(dir + ": " + ec.message());
    SCHEDKIT_RETURN_IF_ERROR(WriteRunFiles(job, placement));
    std::ofstream(EventsPath(options_.state_dir, job.id), std::ios::app).flush();
    // The batch script sets the restart count and the allocation's variables (the time left
    // is read at each run from the file the last start wrote) and execs the argv, quoted
    // word by word.
    const std::string script = dir + "/job.sh";
    {
      std::ofstream out(script);
      out << "#!/bin/sh\n"
          << "export SCHEDKIT_RESTART_COUNT=$((${SLURM_RESTART_COUNT:-0} + " << job.restart_count
          << "))\n";
      for (const std::string& var : AllocationEnv(options_.state_dir, job, placement.gpus(),
                                                  PlacementGpuTypes(placement, cluster_))) {
        const size_t eq = var.find('=');
        const std::string name = var.substr(0, eq);
        if (const char* file = RunFileOf(name)) {
          out << "export " << name << "=\"$(cat " << ShellQuote(dir + file)
              << " 2>/dev/null)\"\n";
        } else {
          out << "export " << name << "=" << ShellQuote(var.substr(eq + 1)) << "\n";
        }
      }
      if (job.shell) {
        out << "exec /bin/sh -c " << ShellQuote(job.command.at(0)) << "\n";
      } else {
        out << "exec";
        for (const std::string& a : job.command) out << " " << ShellQuote(a);
        out << "\n";
      }
      if (!out) return Status::IoError(script + ": cannot write");
    }
    std::vector<std::string> argv = {"sbatch",
                                     "--hold",
                                     "--parsable",
                                     "--job-name=schedkit-" + std::to_string(job.id),
                                     "--comment=" + tag_,
                                     "--nodelist=" + nodes,
                                     "--nodes=" + n,
                                     "--open-mode=append",
                                     "--output=" + dir + "/stdout.log",
                                     "--error=" + dir + "/stderr.log",
                                     "--export=ALL,SCHEDKIT_JOB_ID=" + std::to_string(job.id) +
                                         ",SCHEDKIT_CHECKPOINT_DIR=" + job.checkpoint_dir};
    if (max_gpus > 0) argv.push_back("--gres=gpu:" + std::to_string(max_gpus));
    if (job.cpus > 0) argv.push_back("--cpus-per-task=" + std::to_string(job.cpus));
    // A backstop: the engine ends the job at its limit; Slurm's own limit is in whole
    // minutes, rounded up, so it never comes first.
    if (job.time_limit_s > 0) argv.push_back("--time=" + SlurmMinutes(job));
    if (job.mem_gb > 0)
      argv.push_back("--mem=" + std::to_string(static_cast<long>(job.mem_gb * 1024)) + "M");
    argv.push_back("--chdir=" +
                   (job.working_dir.empty() ? fs::current_path().string() : job.working_dir));
    argv.push_back(script);
    Result<CommandOutput> sub = RunCommand(argv);
    SCHEDKIT_RETURN_IF_ERROR(Check(sub, "sbatch"));
    return Trim(sub->out.substr(0, sub->out.find(';')));
  }

  // A held Slurm job whose release the service did not live to send is pending in Slurm:
  // Adopt cancels it and the job is requeued.
  // A release that fails cancels the held job (Launch's contract: nothing is left).
  Status Launch(const JobRecord& job) override {
    Status released =
        Check(RunCommand({"scontrol", "release", job.backend_id}), "scontrol release");
    if (!released.ok()) RunCommand({"scancel", job.backend_id});
    return released;
  }

  void EndUnrecorded(const std::set<std::string>& recorded) override {
    Result<CommandOutput> q = RunCommand({"squeue", "-h", "-o", "%i|%k"});
    if (!q.ok() || q->exit_code != 0) return;  // Slurm is down: Adopt has failed loudly too.
    std::istringstream lines(q->out);
    std::string line;
    while (std::getline(lines, line)) {
      const size_t bar = line.find('|');
      if (bar == std::string::npos || Trim(line.substr(bar + 1)) != tag_) continue;
      const std::string id = line.substr(0, bar);
      if (!recorded.count(id)) RunCommand({"scancel", id});
    }
  }

  Status Preempt(const JobRecord& job) override {
    if (job.backend_id.empty()) return Status::Ok();
    return Check(RunCommand({"scontrol", "requeuehold", job.backend_id}), "scontrol requeuehold");
  }

  Status Cancel(const JobRecord& job) override {
    if (job.backend_id.empty()) return Status::Ok();
    return Check(RunCommand({"scancel", job.backend_id}), "scancel");
  }

  std::vector<JobExit> Poll(const std::vector<const JobRecord*>& running) override {
    std::vector<JobExit> out;
    if (running.empty()) return out;
    Result<CommandOutput> q = RunCommand({"squeue", "-h", "-o", "%i|%T"});
    if (!q.ok() || q->exit_code != 0) return out;  // Try again next time.
    std::set<std::string> queued;
    std::istringstream lines(q->out);
    std::string line;
    while (std::getline(lines, line)) {
      const size_t bar = line.find('|');
      if (bar != std::string::npos) queued.insert(line.substr(0, bar));
    }
    for (const JobRecord* j : running) {
      if (queued.count(j->backend_id)) continue;
      JobExit e;
      if (Ended(*j, &e)) out.push_back(e);
    }
    return out;
  }

  Liveness Adopt(const JobRecord& job, JobExit* exit) override {
    if (job.backend_id.empty()) return Liveness::kLost;
    Result<CommandOutput> r = RunCommand({"scontrol", "show", "job", "-o", job.backend_id});
    if (!r.ok() || r->exit_code != 0) return Liveness::kLost;
    const std::string state = ParseFields(r->out)["JobState"];
    if (state == "RUNNING" || state == "CONFIGURING" || state == "COMPLETING")
      return Liveness::kAlive;
    if (Ended(job, exit)) return Liveness::kEnded;
    RunCommand({"scancel", job.backend_id});  // Pending in Slurm: start afresh.
    return Liveness::kLost;
  }

 private:
  // The run time the job has left, in whole minutes rounded up (Slurm's unit), at least 1.
  static std::string SlurmMinutes(const JobRecord& job) {
    const double left = std::max(0.0, job.time_limit_s - job.executed_s);
    return std::to_string(std::max(1L, static_cast<long>(std::ceil(left / 60))));
  }

  // The variables job.sh reads at each run from a file that every start writes (a requeued
  // job may resume with less time left, on another GPU type): that file, in the job's
  // directory; null for the others, which are fixed at submission.
  static const char* RunFileOf(const std::string& var) {
    if (var == "SCHEDKIT_TIME_LEFT_S") return "/time_left_s";
    if (var == "SCHEDKIT_GPU_TYPE") return "/gpu_type";
    return nullptr;
  }

  // jobs/<id>/time_left_s and jobs/<id>/gpu_type: SCHEDKIT_TIME_LEFT_S and
  // SCHEDKIT_GPU_TYPE of the run about to start on `placement` (job.sh reads them).
  Status WriteRunFiles(const JobRecord& job, const Placement& placement) {
    const std::string dir = JobDir(options_.state_dir, job.id);
    for (const std::string& var : AllocationEnv(options_.state_dir, job, 0,
                                                PlacementGpuTypes(placement, cluster_))) {
      const size_t eq = var.find('=');
      const char* file = RunFileOf(var.substr(0, eq));
      if (file == nullptr) continue;
      const std::string path = dir + file;
      std::ofstream out(path, std::ios::trunc);
      out << var.substr(eq + 1) << "\n";
      if (!out) return Status::IoError(path + ": cannot write");
    }
    return Status::Ok();
  }

  // True iff Slurm says the job has ended; fills `e`.
  bool Ended(const JobRecord& j, JobExit* e) {
    e->id = j.id;
    Result<CommandOutput> r = RunCommand({"scontrol", "show", "job", "-o", j.backend_id});
    if (!r.ok() || r->exit_code != 0) {
      e->exit_code = 1;
      e->message = "Slurm job " + j.backend_id + " has left Slurm's records";
      return true;
    }
    auto f = ParseFields(r->out);
    const std::string& state = f["JobState"];
    if (state == "PENDING" || state == "RUNNING" || state == "CONFIGURING" ||
        state == "COMPLETING" || state == "REQUEUED" || state == "SUSPENDED") {
      return false;
    }
    const std::string& code = f["ExitCode"];  // "status:signal"
    const size_t colon = code.find(':');
    const int status = std::atoi(code.substr(0, colon).c_str());
    const int sig = colon == std::string::npos ? 0 : std::atoi(code.substr(colon + 1).c_str());
    e->exit_code = sig > 0 ? 128 + sig : status;
    if (state != "COMPLETED") {
      e->exit_code = e->exit_code == 0 ? 1 : e->exit_code;
      e->message = "Slurm job " + j.backend_id + " ended " + state + " (" + f["Reason"] + ")";
    }
    return true;
  }

  RuntimeOptions options_;
  ClusterSpec cluster_;
  std::vector<std::string> names_;
  std::string tag_;  // StateTag(state_dir): every submission's comment.
};

}  // namespace

Result<std::unique_ptr<Backend>> MakeSlurmBackend(const RuntimeOptions& options) {
  if (!options.cluster.empty()) {
    return Status::InvalidArgument(
        "--cluster: only the local backend reads a cluster file; the slurm backend takes its "
        "nodes and their GPU types from sinfo (gres gpu:TYPE:N)");
  }
  Result<CommandOutput> r = RunCommand({"sinfo", "-h", "-N", "-o", "%N|%G"});
  SCHEDKIT_RETURN_IF_ERROR(Check(r, "sinfo (is SLURM_CONF set and slurmctld up?)"));
  // Node -> (GPUs, GPU type), sorted by name; a node in two partitions is listed twice.
  std::map<std::string, std::pair<int, std::string>> gpus_of;
  std::istringstream lines(r->out);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t bar = line.find('|');
    if (bar == std::string::npos) continue;
    const std::string gres = line.substr(bar + 1);
    int gpus = 0;
    std::string type = kGenericGpuType;
    const size_t at = gres.find("gpu:");
    if (at != std::string::npos) {
      std::string count = gres.substr(at + 4);
      const size_t colon = count.find(':');  // gpu:TYPE:N
      if (colon != std::string::npos && !std::isdigit(static_cast<unsigned char>(count[0]))) {
        type = count.substr(0, colon);
        count = count.substr(colon + 1);
      }
      gpus = std::atoi(count.c_str());
    }
    gpus_of[line.substr(0, bar)] = {std::min(gpus, kMaxGpusPerNode), type};
  }
  if (gpus_of.empty()) return Status::InvalidArgument("sinfo lists no nodes");
  ClusterSpec cluster;
  cluster.source = "slurm";
  std::vector<std::string> names;
  for (const auto& [name, gpus_type] : gpus_of) {
    NodeSpec node;
    node.gpus = gpus_type.first;
    node.gpu_type = gpus_type.second;
    node.cpus = 0;
    node.mem_gb = 0;
    cluster.nodes.push_back(node);
    names.push_back(name);
  }
  return std::unique_ptr<Backend>(
      std::make_unique<SlurmBackend>(options, std::move(cluster), std::move(names)));
}

}  // namespace schedkit::runtime
