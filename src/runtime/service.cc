// The gRPC face of the runtime (proto/schedkit/v1/scheduler.proto) and RuntimeService::Start,
// which opens the state directory, the store, the backend and the policy.
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "runtime/auth.h"
#include "runtime/engine.h"
#include "runtime/policy_support.h"
#include "runtime/requests.h"
#include "schedkit/v1/scheduler.grpc.pb.h"

namespace schedkit {
namespace runtime {
namespace {

namespace fs = std::filesystem;
namespace pb = ::schedkit::v1;

grpc::Status ToGrpc(const Status& st) {
  switch (st.code()) {
    case Status::Code::kOk:
      return grpc::Status::OK;
    case Status::Code::kInvalidArgument:
      return {grpc::StatusCode::INVALID_ARGUMENT, st.message()};
    case Status::Code::kNotFound:
      return {grpc::StatusCode::NOT_FOUND, st.message()};
    case Status::Code::kAlreadyExists:
      return {grpc::StatusCode::ALREADY_EXISTS, st.message()};
    default:
      return {grpc::StatusCode::INTERNAL, st.message()};
  }
}

// The stored placement text with the backend's node names ("gpu-box-2:0-3").
std::string PlacementText(const std::string& stored, const std::vector<std::string>& names) {
  Result<Placement> p = ParsePlacement(stored);  // Store::LoadAll and the engine wrote it.
  if (!p.ok()) return stored;
  for (const NodeShare& s : p->shares) {
    if (s.node >= static_cast<int>(names.size())) return stored;
  }
  return p->ToString(names);
}

class SchedulerImpl final : public pb::Scheduler::Service {
 public:
  SchedulerImpl(Engine* engine, std::string token, std::string state_dir,
                std::vector<std::string> nodes, std::string policy)
      : engine_(engine),
        token_(std::move(token)),
        state_dir_(std::move(state_dir)),
        nodes_(std::move(nodes)),
        policy_(std::move(policy)) {}

  grpc::Status Submit(grpc::ServerContext* ctx, const pb::SubmitRequest* req,
                      pb::SubmitResponse* resp) override {
    if (auto st = Authorize(ctx); !st.ok()) return st;
    Result<JobRecord> job = JobFromSubmitRequest(*req, engine_->TotalGpus());
    if (!job.ok()) return ToGrpc(job.status());
    Result<JobId> id = engine_->Submit(std::move(job).value());
    if (!id.ok()) return ToGrpc(id.status());
    resp->set_job_id(*id);
    return grpc::Status::OK;
  }

  grpc::Status ListJobs(grpc::ServerContext* ctx, const pb::ListJobsRequest* req,
                        pb::ListJobsResponse* resp) override {
    if (auto st = Authorize(ctx); !st.ok()) return st;
    Result<ListJobsQuery> q = ParseListJobsRequest(*req);
    if (!q.ok()) return ToGrpc(q.status());
    const size_t page_size = q->page_size;
    // One more than a page tells whether another page follows.
    const std::vector<JobRecord> jobs = engine_->List(q->states, q->after, page_size + 1);
    size_t bytes = 0;
    for (const JobRecord& j : jobs) {
      if (static_cast<size_t>(resp->jobs_size()) == page_size ||
          (resp->jobs_size() > 0 && bytes >= kPageBytes)) {
        resp->set_next_page_token(std::to_string(resp->jobs(resp->jobs_size() - 1).id()));
        break;
      }
      pb::Job* out = resp->add_jobs();
      Fill(j, out);
      bytes += out->ByteSizeLong();
    }
    return grpc::Status::OK;
  }

  grpc::Status GetJob(grpc::ServerContext* ctx, const pb::GetJobRequest* req,
                      pb::Job* resp) override {
    if (auto st = Authorize(ctx); !st.ok()) return st;
    Result<JobRecord> j = engine_->Get(req->job_id());
    if (!j.ok()) return ToGrpc(j.status());
    Fill(*j, resp);
    return grpc::Status::OK;
  }

  grpc::Status WatchJobs(grpc::ServerContext* ctx, const pb::WatchJobsRequest*,
                         grpc::ServerWriter<pb::JobEvent>* writer) override {
    if (auto st = Authorize(ctx); !st.ok()) return st;
    int64_t seq = engine_->LastEventSeq();
    for (const JobRecord& j : engine_->List({})) {
      pb::JobEvent e;
      e.set_time(j.submit_time);
      e.set_kind("current");
      Fill(j, e.mutable_job());
      if (!writer->Write(e)) return grpc::Status::OK;
    }
    while (!ctx->IsCancelled() && !engine_->stopped()) {
      for (const JobEvent& ev : engine_->EventsAfter(seq, 0.5)) {
        seq = ev.seq;
        pb::JobEvent e;
        e.set_time(ev.time);
        e.set_kind(ev.kind);
        Fill(ev.job, e.mutable_job());
        if (!writer->Write(e)) return grpc::Status::OK;
      }
    }
    return grpc::Status::OK;
  }

  grpc::Status Cancel(grpc::ServerContext* ctx, const pb::CancelRequest* req,
                      pb::CancelResponse* resp) override {
    if (auto st = Authorize(ctx); !st.ok()) return st;
    Result<RunState> was = engine_->Cancel(req->job_id());
    if (!was.ok()) return ToGrpc(was.status());
    if (IsFinal(*was)) {
      return {grpc::StatusCode::FAILED_PRECONDITION,
              "job " + std::to_string(req->job_id()) + " already ended " + RunStateName(*was)};
    }
    resp->set_previous_state(static_cast<pb::JobState>(*was));
    return grpc::Status::OK;
  }

  grpc::Status ClusterStatus(grpc::ServerContext* ctx, const pb::ClusterStatusRequest*,
                             pb::ClusterStatusResponse* resp) override {
    if (auto st = Authorize(ctx); !st.ok()) return st;
    const ClusterSummary s = engine_->Summary();
    resp->set_backend(engine_->backend_name());
    resp->set_policy(policy_);
    for (const NodeStatus& n : s.nodes) {
      pb::Node* node = resp->add_nodes();
      node->set_name(n.name);
      node->set_gpus(n.gpus);
      node->set_free_gpus(n.free_gpus);
      node->set_drained(n.drained);
      node->set_gpu_type(n.gpu_type);
    }
    resp->set_pending(s.pending);
    resp->set_running(s.running);
    resp->set_finished(s.finished);
    return grpc::Status::OK;
  }

  grpc::Status DrainNode(grpc::ServerContext* ctx, const pb::DrainNodeRequest* req,
                         pb::DrainNodeResponse*) override {
    if (auto st = Authorize(ctx); !st.ok()) return st;
    if (auto st = ValidateNodeName(req->node()); !st.ok()) return ToGrpc(st);
    return ToGrpc(engine_->SetDrained(req->node(), true));
  }

  grpc::Status UndrainNode(grpc::ServerContext* ctx, const pb::UndrainNodeRequest* req,
                           pb::UndrainNodeResponse*) override {
    if (auto st = Authorize(ctx); !st.ok()) return st;
    if (auto st = ValidateNodeName(req->node()); !st.ok()) return ToGrpc(st);
    return ToGrpc(engine_->SetDrained(req->node(), false));
  }

  grpc::Status Resize(grpc::ServerContext* ctx, const pb::ResizeRequest* req,
                      pb::ResizeResponse* resp) override {
    if (auto st = Authorize(ctx); !st.ok()) return st;
    if (auto st = ValidateResizeRequest(*req, engine_->TotalGpus()); !st.ok()) return ToGrpc(st);
    int previous = 0;
    std::string refused;
    if (Status st = engine_->Resize(req->job_id(), req->gpus(), &previous, &refused); !st.ok())
      return ToGrpc(st);
    if (!refused.empty()) return {grpc::StatusCode::FAILED_PRECONDITION, refused};
    resp->set_previous_gpus(previous);
    return grpc::Status::OK;
  }

 private:
  grpc::Status Authorize(grpc::ServerContext* ctx) const {
    const auto& md = ctx->client_metadata();
    auto it = md.find("authorization");
    if (it == md.end()) {
      return {grpc::StatusCode::UNAUTHENTICATED,
              "missing 'authorization: Bearer <token>' metadata"};
    }
    if (!TokenMatches(std::string(it->second.data(), it->second.size()), "Bearer " + token_)) {
      return {grpc::StatusCode::UNAUTHENTICATED, "wrong token (see <state-dir>/token)"};
    }
    return grpc::Status::OK;
  }

  void Fill(const JobRecord& j, pb::Job* out) const {
    out->set_id(j.id);
    out->set_state(static_cast<pb::JobState>(j.state));
    for (const std::string& a : j.command) out->add_command(a);
    out->set_shell(j.shell);
    out->set_gpus(j.gpus);
    out->set_cpus(j.cpus);
    out->set_mem_gb(j.mem_gb);
    out->set_duration_s(j.duration_s);
    out->set_user(j.user);
    out->set_vc(j.vc);
    out->set_priority(j.priority);
    out->set_checkpoint_dir(j.checkpoint_dir);
    out->set_name(j.name);
    out->set_submit_time(j.submit_time);
    out->set_first_start_time(j.first_start_time);
    out->set_finish_time(j.finish_time);
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    out->set_executed_s(j.executed_s + (j.state == RunState::kRunning
                                            ? std::max(0.0, now - j.last_start_time)
                                            : 0));
    out->set_restart_count(j.restart_count);
    out->set_placement(PlacementText(j.placement, nodes_));
    out->set_exit_code(j.exit_code);
    out->set_message(j.message);
    const std::string dir = JobDir(state_dir_, j.id);
    out->set_stdout_path(dir + "/stdout.log");
    out->set_stderr_path(dir + "/stderr.log");
    out->set_backend_id(j.backend_id);
    out->set_iteration_time_s(j.iteration_time_s);
    for (double t : j.stage_times_s) out->add_stage_times_s(t);
    out->set_group(j.group);
    out->set_group_size(j.group_size);
    out->set_rate(j.rate);
    out->set_guest(j.guest);
    out->set_time_limit_s(j.time_limit_s);
    out->set_max_gpus(j.max_gpus);
    out->set_gpu_milli(j.gpu_milli);
    for (const TypeSpeed& t : j.type_speeds) {
      pb::TypeSpeed* speed = out->add_type_speeds();
      speed->set_gpu_type(t.gpu_type);
      speed->set_speed(t.speed);
    }
  }

  Engine* engine_;
  std::string token_;
  std::string state_dir_;
  std::vector<std::string> nodes_;
  std::string policy_;
};

// The token file: read it, or create it (0600, 32 random bytes as hex) at first start.
Result<std::string> LoadOrCreateToken(const std::string& path) {
  std::ifstream in(path);
  std::string token;
  if (in && std::getline(in, token) && !token.empty()) {
    SCHEDKIT_RETURN_IF_ERROR(CheckTokenFile(path, token));
    return token;
  }
  token = RandomHex(64);
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0)
    return Status::IoError(path + ": cannot create the token file: " + std::strerror(errno));
  const std::string line = token + "\n";
  const bool ok = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  close(fd);
  if (!ok) return Status::IoError(path + ": cannot write the token file");
  return token;
}

// An exclusive flock on <state-dir>/lock, held while the service runs (the kernel drops
// it when the process dies; monitors close it): one service per state directory.
class StateDirLock {
 public:
  static Result<std::unique_ptr<StateDirLock>> Take(const std::string& state_dir) {
    const std::string path = state_dir + "/lock";
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return Status::IoError(path + ": " + std::strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      char pid[32] = {0};
      (void)!pread(fd, pid, sizeof(pid) - 1, 0);
      close(fd);
      std::string holder(pid);
      holder.erase(holder.find_last_not_of(" \n") + 1);
      return Status::AlreadyExists(state_dir + ": another `schedkit serve`" +
                                   (holder.empty() ? "" : " (pid " + holder + ")") +
                                   " uses this state directory; stop it or give another "
                                   "--state-dir");
    }
    // Best effort: without the pid, only a refused service's message lacks it.
    const std::string pid = std::to_string(getpid()) + "\n";
    if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, pid.data(), pid.size(), 0);
    return std::unique_ptr<StateDirLock>(new StateDirLock(fd));
  }
  ~StateDirLock() { close(fd_); }

 private:
  explicit StateDirLock(int fd) : fd_(fd) {}
  int fd_;
};

class ServiceImpl final : public RuntimeService {
 public:
  std::string address() const override { return address_; }
  void Wait() override { server_->Wait(); }
  void Shutdown() override {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    engine_->Stop();
  }
  ~ServiceImpl() override {
    if (server_) Shutdown();
  }

  std::unique_ptr<StateDirLock> lock_;  // Destroyed last.
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<SchedulerImpl> impl_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

}  // namespace
}  // namespace runtime

Result<std::unique_ptr<RuntimeService>> RuntimeService::Start(const RuntimeOptions& in) {
  using namespace runtime;
  RuntimeOptions options = in;
  if (options.state_dir.empty()) return Status::InvalidArgument("--state-dir: empty");
  if (!(options.grace_s >= 0) || !std::isfinite(options.grace_s)) {
    return Status::InvalidArgument("--grace-s: must be a finite number >= 0");
  }
  if (!(options.poll_s > 0) || !std::isfinite(options.poll_s)) {
    return Status::InvalidArgument("--poll-s: must be a finite number > 0");
  }
  std::error_code ec;
  fs::create_directories(options.state_dir, ec);
  if (ec) return Status::IoError(options.state_dir + ": " + ec.message());
  options.state_dir = fs::absolute(options.state_dir).lexically_normal().string();
  if (!options.state_dir.empty() && options.state_dir.back() == '/') options.state_dir.pop_back();
  chmod(options.state_dir.c_str(), 0700);
  Result<std::unique_ptr<StateDirLock>> lock = StateDirLock::Take(options.state_dir);
  if (!lock.ok()) return lock.status();
  Result<std::string> token = LoadOrCreateToken(options.state_dir + "/token");
  if (!token.ok()) return token.status();

  Result<std::unique_ptr<Backend>> backend =
      options.backend == "local" ? MakeLocalBackend(options)
      : options.backend == "slurm"
          ? MakeSlurmBackend(options)
          : Result<std::unique_ptr<Backend>>(Status::InvalidArgument(
                "--backend '" + options.backend + "': expected local or slurm"));
  if (!backend.ok()) return backend.status();
  if (options.policy.policy.empty()) options.policy.policy = "fifo";
  SCHEDKIT_RETURN_IF_ERROR(CheckPolicyRunsOn(options.policy.policy, **backend));
  Result<std::unique_ptr<Policy>> policy = MakePolicy(options.policy);
  if (!policy.ok()) return policy.status();
  Result<std::unique_ptr<Store>> store = Store::Open(options.state_dir + "/schedkit.db");
  if (!store.ok()) return store.status();

  std::vector<std::string> nodes = (*backend)->NodeNames();
  auto service = std::make_unique<ServiceImpl>();
  service->lock_ = std::move(lock).value();
  Result<std::unique_ptr<Engine>> engine = Engine::Start(
      options, std::move(store).value(), std::move(backend).value(), std::move(policy).value());
  if (!engine.ok()) return engine.status();
  service->engine_ = std::move(engine).value();
  service->impl_ = std::make_unique<SchedulerImpl>(
      service->engine_.get(), *token, options.state_dir, std::move(nodes), options.policy.policy);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(service->impl_.get());
  service->server_ = builder.BuildAndStart();
  if (!service->server_ || port == 0) {
    service->engine_->Stop();
    return Status::InvalidArgument("--listen '" + options.listen + "': cannot listen there");
  }
  const std::string host = options.listen.substr(0, options.listen.rfind(':'));
  service->address_ = host + ":" + std::to_string(port);
  // Clients find the service through this file (written atomically).
  const std::string tmp = options.state_dir + "/address.tmp";
  std::ofstream(tmp) << service->address_ << "\n";
  fs::rename(tmp, options.state_dir + "/address", ec);
  if (ec) return Status::IoError(options.state_dir + "/address: " + ec.message());
  return std::unique_ptr<RuntimeService>(std::move(service));
}

}  // namespace schedkit
