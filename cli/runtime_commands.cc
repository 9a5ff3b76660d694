// The real-cluster runtime (docs/runtime.md): `schedkit serve` and its clients `submit`,
// `jobs`, `watch`, `cancel`, `resize`, `status`, `drain`, `undrain`. Built only with
// SCHEDKIT_BUILD_RUNTIME, into libschedkit_runtime_commands.so with the runtime and gRPC,
// not into the executable, which opens it only for these commands (cli/runtime_loader.cc).
#include "commands.h"

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <random>

#include "runtime/auth.h"
#include "runtime/client.h"
#include "schedkit/plugin.h"
#include "schedkit/runtime.h"
#include "workload/trace_formats.h"

namespace schedkit::cli {
namespace {

namespace pb = ::schedkit::v1;

std::string DefaultStateDir() {
  if (const char* d = std::getenv("SCHEDKIT_STATE_DIR")) return d;
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.schedkit";
}

struct ServeArgs {
  RuntimeOptions options;
  std::string policy = "fifo", placement, admission, state_dir = DefaultStateDir();
  std::vector<std::string> opts;
  bool poll_given = false, gpus_given = false;
};

int Serve(ServeArgs& a) {
  auto opts = ParseOpts(a.opts);
  if (!opts.ok()) return Fail(opts.status().message());
  a.options.policy.policy = a.policy;
  a.options.policy.placement = a.placement;
  a.options.policy.admission = a.admission;
  a.options.policy.options = *opts;
  a.options.state_dir = a.state_dir;
  if (!a.options.cluster.empty() && a.gpus_given)
    return Fail("--gpus and --cluster: give one (the cluster file's nodes say how many GPUs)");
  if (!a.poll_given && a.options.backend == "slurm")
    a.options.poll_s = 1.0;  // One squeue a second.
  // SIGINT/SIGTERM are taken by sigwait below, not by whichever thread they land on.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  auto service = RuntimeService::Start(a.options);
  if (!service.ok()) return Fail(service.status().message());
  std::printf("schedkit serve: %s backend, policy %s, listening on %s, state in %s\n",
              a.options.backend.c_str(), a.policy.c_str(), (*service)->address().c_str(),
              std::filesystem::absolute(a.state_dir).c_str());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::printf("schedkit serve: signal %d, stopping (running jobs keep running)\n", sig);
  (*service)->Shutdown();
  return 0;
}

struct ClientArgs {
  std::string state_dir = DefaultStateDir(), server, token_file;
};

void AddClientOptions(CLI::App* cmd, ClientArgs* c) {
  cmd->add_option("--state-dir", c->state_dir, "the service's state directory (address, token)");
  cmd->add_option("--server", c->server, "host:port (default: <state-dir>/address)");
  cmd->add_option("--token-file", c->token_file, "bearer token file (default: <state-dir>/token)");
}

// Runs `call` with a client; prints the gRPC error as one line on failure.
template <typename F>
int WithClient(const ClientArgs& c, F call) {
  Result<runtime::Endpoint> endpoint =
      runtime::ResolveEndpoint(c.state_dir, c.server, c.token_file);
  if (!endpoint.ok()) return Fail(endpoint.status().message());
  runtime::Client client(*endpoint);
  grpc::Status st = call(client);
  if (!st.ok()) {
    static const char* kCodes[] = {"OK",
                                   "CANCELLED",
                                   "UNKNOWN",
                                   "INVALID_ARGUMENT",
                                   "DEADLINE_EXCEEDED",
                                   "NOT_FOUND",
                                   "ALREADY_EXISTS",
                                   "PERMISSION_DENIED",
                                   "RESOURCE_EXHAUSTED",
                                   "FAILED_PRECONDITION",
                                   "ABORTED",
                                   "OUT_OF_RANGE",
                                   "UNIMPLEMENTED",
                                   "INTERNAL",
                                   "UNAVAILABLE",
                                   "DATA_LOSS",
                                   "UNAUTHENTICATED"};
    const int code = st.error_code();
    return Fail(std::string(code >= 0 && code <= 16 ? kCodes[code] : "ERROR") + ": " +
                st.error_message());
  }
  return 0;
}

struct SubmitArgs {
  ClientArgs client;
  pb::SubmitRequest req;
  std::vector<std::string> command;
  int gpus = 1, max_gpus = 0, gpu_milli = 0, cpus = 0, priority = 0;
  double mem_gb = 0, duration_s = 0, iteration_time_s = 0;
  std::string time_limit;  // "90", "90s", "15m", "2h".
  std::string type_speeds;  // "k80=0.5;v100=1".
  std::vector<double> stage_times_s;
  bool shell = false;
  std::string user, vc, name, checkpoint_dir, working_dir, idempotency_key;
};

// Seconds from "90", "90s", "1.5m" or "2h"; false if `text` is none of these.
bool ParseSeconds(const std::string& text, double* seconds) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  const std::string unit = text.substr(used);
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  *seconds = v * scale;
  return scale > 0 && std::isfinite(*seconds) && *seconds >= 0;
}

int Submit(SubmitArgs& a) {
  pb::SubmitRequest& r = a.req;
  if (!a.time_limit.empty()) {
    double limit = 0;
    if (!ParseSeconds(a.time_limit, &limit))
      return Fail("--time-limit '" + a.time_limit + "': expected seconds >= 0, e.g. 90, 90s, 15m or 2h");
    r.set_time_limit_s(limit);
  }
  std::vector<TypeSpeed> speeds;
  if (Status st = workload::ParseTypeSpeeds(a.type_speeds, &speeds); !st.ok())
    return Fail("--type-speeds '" + a.type_speeds + "': " + st.message());
  for (const TypeSpeed& t : speeds) {
    pb::TypeSpeed* speed = r.add_type_speeds();
    speed->set_gpu_type(t.gpu_type);
    speed->set_speed(t.speed);
  }
  for (const std::string& c : a.command) r.add_command(c);
  r.set_shell(a.shell);
  r.set_gpus(a.gpus);
  r.set_max_gpus(a.max_gpus);
  r.set_gpu_milli(a.gpu_milli);
  r.set_cpus(a.cpus);
  r.set_mem_gb(a.mem_gb);
  r.set_duration_s(a.duration_s);
  r.set_iteration_time_s(a.iteration_time_s);
  for (double t : a.stage_times_s) r.add_stage_times_s(t);
  r.set_priority(a.priority);
  if (a.user.empty()) {
    const passwd* pw = getpwuid(getuid());
    a.user = pw != nullptr ? pw->pw_name : std::to_string(getuid());
  }
  r.set_user(a.user);
  r.set_vc(a.vc);
  r.set_name(a.name);
  namespace fs = std::filesystem;
  if (!a.checkpoint_dir.empty()) r.set_checkpoint_dir(fs::absolute(a.checkpoint_dir).string());
  r.set_working_dir(a.working_dir.empty() ? fs::current_path().string()
                                          : fs::absolute(a.working_dir).string());
  r.set_idempotency_key(a.idempotency_key.empty() ? runtime::RandomHex(32) : a.idempotency_key);
  return WithClient(a.client, [&](runtime::Client& c) {
    pb::SubmitResponse resp;
    grpc::Status st = c.stub().Submit(c.Context().get(), r, &resp);
    // Unreachable (e.g. restarting): once more, waiting up to 10 s for it. The service may
    // have stored the job before the connection broke; the key makes the retry return it.
    if (st.error_code() == grpc::StatusCode::UNAVAILABLE) {
      auto ctx = c.Context(10);
      ctx->set_wait_for_ready(true);
      st = c.stub().Submit(ctx.get(), r, &resp);
    }
    if (st.ok()) std::printf("%lld\n", static_cast<long long>(resp.job_id()));
    return st;
  });
}

std::string Clock(double unix_s) {
  if (unix_s <= 0) return "-";
  const time_t t = static_cast<time_t>(unix_s);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%H:%M:%S", std::localtime(&t));
  return buf;
}

// `text` with control characters (and DEL) as \xNN, so that a job's fields cannot move
// the terminal's cursor, colour it or add lines to the listing.
std::string Escaped(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out;
}

struct JobsArgs {
  ClientArgs client;
  std::vector<std::string> states;
  int64_t id = 0;
};

void PrintJob(const pb::Job& j) {
  std::string cmd;
  for (const std::string& w : j.command()) cmd += (cmd.empty() ? "" : " ") + w;
  std::printf("%-6lld %-10s %4d %8d %9.1f %8s %-12s %-10s %s%s\n", static_cast<long long>(j.id()),
              pb::JobState_Name(j.state()).c_str(), j.gpus(), j.restart_count(), j.executed_s(),
              Clock(j.first_start_time()).c_str(),
              j.placement().empty() ? "-" : j.placement().c_str(),
              j.backend_id().empty() ? "-" : j.backend_id().c_str(), Escaped(cmd).c_str(),
              j.message().empty() ? "" : ("  # " + Escaped(j.message())).c_str());
}

int Jobs(const JobsArgs& a) {
  pb::ListJobsRequest req;
  for (const std::string& s : a.states) {
    pb::JobState st;
    if (!pb::JobState_Parse(s, &st) || st == pb::JOB_STATE_UNSPECIFIED) {
      return Fail("--state '" + s +
                  "': expected PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED, REJECTED or "
                  "TIMEOUT");
    }
    req.add_states(st);
  }
  return WithClient(a.client, [&](runtime::Client& c) {
    pb::ListJobsResponse resp;
    grpc::Status st;
    if (a.id > 0) {
      pb::GetJobRequest g;
      g.set_job_id(a.id);
      st = c.stub().GetJob(c.Context().get(), g, resp.add_jobs());
    } else {
      st = c.stub().ListJobs(c.Context().get(), req, &resp);
    }
    if (!st.ok()) return st;
    std::printf("%-6s %-10s %4s %8s %9s %8s %-12s %-10s %s\n", "ID", "STATE", "GPUS", "RESTARTS",
                "EXEC_S", "STARTED", "PLACEMENT", "BACKEND", "COMMAND");
    while (true) {  // One page at a time.
      for (const pb::Job& j : resp.jobs()) PrintJob(j);
      if (resp.next_page_token().empty()) return st;
      req.set_page_token(resp.next_page_token());
      resp.Clear();
      st = c.stub().ListJobs(c.Context().get(), req, &resp);
      if (!st.ok()) return st;
    }
  });
}

// Prints one line per job event until the service stops or the user interrupts.
int Watch(const ClientArgs& c) {
  return WithClient(c, [&](runtime::Client& client) {
    auto ctx = client.Context(365 * 24 * 3600.0);
    auto stream = client.stub().WatchJobs(ctx.get(), pb::WatchJobsRequest());
    pb::JobEvent e;
    while (stream->Read(&e)) {
      std::printf("%s job %lld %s %s%s\n", Clock(e.time()).c_str(),
                  static_cast<long long>(e.job().id()), e.kind().c_str(),
                  pb::JobState_Name(e.job().state()).c_str(),
                  e.job().placement().empty() ? "" : (" on " + e.job().placement()).c_str());
      std::fflush(stdout);
    }
    return stream->Finish();
  });
}

int Cancel(const ClientArgs& c, int64_t id) {
  return WithClient(c, [&](runtime::Client& client) {
    pb::CancelRequest req;
    req.set_job_id(id);
    pb::CancelResponse resp;
    grpc::Status st = client.stub().Cancel(client.Context(60).get(), req, &resp);
    if (st.ok())
      std::printf("job %lld cancelled (was %s)\n", static_cast<long long>(id),
                  pb::JobState_Name(resp.previous_state()).c_str());
    return st;
  });
}

int Resize(const ClientArgs& c, int64_t id, int gpus) {
  return WithClient(c, [&](runtime::Client& client) {
    pb::ResizeRequest req;
    req.set_job_id(id);
    req.set_gpus(gpus);
    pb::ResizeResponse resp;
    grpc::Status st = client.stub().Resize(client.Context().get(), req, &resp);
    if (st.ok())
      std::printf("job %lld resized from %d to %d GPUs\n", static_cast<long long>(id),
                  resp.previous_gpus(), gpus);
    return st;
  });
}

int StatusCmd(const ClientArgs& c) {
  return WithClient(c, [&](runtime::Client& client) {
    pb::ClusterStatusResponse resp;
    grpc::Status st =
        client.stub().ClusterStatus(client.Context().get(), pb::ClusterStatusRequest(), &resp);
    if (!st.ok()) return st;
    std::printf("backend %s, policy %s: %lld pending, %lld running, %lld finished\n",
                resp.backend().c_str(), resp.policy().c_str(),
                static_cast<long long>(resp.pending()), static_cast<long long>(resp.running()),
                static_cast<long long>(resp.finished()));
    for (const pb::Node& n : resp.nodes()) {
      std::printf("  node %-10s %d/%d GPUs free, type %s%s\n", n.name().c_str(), n.free_gpus(),
                  n.gpus(), n.gpu_type().c_str(), n.drained() ? " (drained)" : "");
    }
    return st;
  });
}

// `schedkit drain NODE` (drained) and `schedkit undrain NODE`.
int SetDrained(const ClientArgs& c, const std::string& node, bool drained) {
  return WithClient(c, [&](runtime::Client& client) {
    grpc::Status st;
    if (drained) {
      pb::DrainNodeRequest req;
      req.set_node(node);
      pb::DrainNodeResponse resp;
      st = client.stub().DrainNode(client.Context().get(), req, &resp);
    } else {
      pb::UndrainNodeRequest req;
      req.set_node(node);
      pb::UndrainNodeResponse resp;
      st = client.stub().UndrainNode(client.Context().get(), req, &resp);
    }
    if (st.ok()) {
      std::printf(drained ? "node %s drained: no new job starts there\n"
                          : "node %s undrained: new jobs may start there\n",
                  node.c_str());
    }
    return st;
  });
}

}  // namespace

void DefineRuntimeCommands(CLI::App& app, std::vector<Subcommand>& out) {
  auto serve = std::make_shared<ServeArgs>();
  CLI::App* s = app.add_subcommand(
      "serve", "Run the scheduler service (gRPC) on real jobs (docs/runtime.md)");
  s->add_option("--backend", serve->options.backend, "local (default) or slurm");
  s->add_option("--gpus", serve->options.gpus,
                "local backend: GPU slots (default 1; fake ones are fine)")
      ->each([serve](const std::string&) { serve->gpus_given = true; });
  s->add_option("--cluster", serve->options.cluster,
                "local backend: cluster spec file whose nodes group this host's GPU slots, each "
                "with its GPU type (schedkit CSV gpu_type column; instead of --gpus)");
  s->add_option("--policy", serve->policy, "any registered policy (default fifo)");
  AddPluginOption(s);
  s->add_option("--placement", serve->placement, "placement module (default: the policy's)");
  s->add_option("--admission", serve->admission, "admission module (default: the policy's)");
  s->add_option("--opt", serve->opts, "policy option key=value (repeatable)");
  s->add_option("--listen", serve->options.listen,
                "host:port (default 127.0.0.1:0 = a free loopback port)");
  s->add_option("--state-dir", serve->state_dir,
                "store, token, address, job logs (default ~/.schedkit)");
  s->add_option("--grace-s", serve->options.grace_s,
                "SIGTERM -> SIGKILL delay on preempt/cancel (default 10)");
  s->add_option("--poll-s", serve->options.poll_s,
                "job completion polling interval (default 0.2; slurm 1)")
      ->each([serve](const std::string&) { serve->poll_given = true; });
  out.push_back({s, [serve] { return Serve(*serve); }});

  auto sub = std::make_shared<SubmitArgs>();
  CLI::App* su =
      app.add_subcommand("submit", "Submit a job: schedkit submit [options] -- CMD ARGS...");
  AddClientOptions(su, &sub->client);
  su->add_option("--gpus", sub->gpus, "GPUs (default 1)");
  su->add_option("--max-gpus", sub->max_gpus,
                 "elastic job: the most GPUs a policy (optimus) may start it on; 0 = rigid (default), "
                 "else >= --gpus");
  su->add_option("--gpu-milli", sub->gpu_milli,
                 "share of one GPU in milli-GPU, 1-999 (with --gpus 1); other fractional jobs "
                 "may share that GPU; 0 or 1000 = whole GPUs (default)");
  su->add_option("--type-speeds", sub->type_speeds,
                 "speed per GPU type, TYPE=SPEED joined by ';' ('k80=0.5;v100=1'): work seconds "
                 "per wall second alone there; never placed on a type not listed (default: the "
                 "same on every type)");
  su->add_option("--cpus", sub->cpus, "CPUs (0 = no limit)");
  su->add_option("--mem", sub->mem_gb, "memory limit in GB (0 = none)");
  su->add_option("--duration", sub->duration_s,
                 "expected run time in seconds (estimates for SRTF and co.)");
  su->add_option("--iteration-time", sub->iteration_time_s,
                 "seconds per iteration alone (co-locating policies: muri-s, muri-l, antman)");
  su->add_option("--stages", sub->stage_times_s,
                 "one iteration's stage times in seconds: DATA,GPU,NETWORK (Muri interleaves "
                 "jobs whose stages differ)")
      ->delimiter(',')
      ->expected(3);
  su->add_option("--time-limit", sub->time_limit,
                 "run time allowed over all runs: 90, 90s, 15m, 2h (ended TIMEOUT there)");
  su->add_option("--user", sub->user, "user (default: you)");
  su->add_option("--vc", sub->vc, "virtual cluster");
  su->add_option("--priority", sub->priority, "priority (larger = more important)");
  su->add_option("--name", sub->name, "job name");
  su->add_option("--checkpoint-dir", sub->checkpoint_dir,
                 "SCHEDKIT_CHECKPOINT_DIR (default: in the state dir)");
  su->add_option("--workdir", sub->working_dir, "working directory (default: the current one)");
  su->add_flag("--shell", sub->shell, "run the single CMD string through /bin/sh -c");
  su->add_option("--idempotency-key", sub->idempotency_key,
                 "retries with the same key return the first job (default: a random key)");
  su->add_option("command", sub->command, "the program and its arguments (after --)")->required();
  out.push_back({su, [sub] { return Submit(*sub); }});

  auto jobs = std::make_shared<JobsArgs>();
  CLI::App* j = app.add_subcommand("jobs", "List the service's jobs");
  AddClientOptions(j, &jobs->client);
  j->add_option("--state", jobs->states, "only jobs in this state (repeatable)");
  j->add_option("--id", jobs->id, "only this job");
  out.push_back({j, [jobs] { return Jobs(*jobs); }});

  auto watch = std::make_shared<ClientArgs>();
  CLI::App* w = app.add_subcommand("watch", "Print every job state change as it happens");
  AddClientOptions(w, watch.get());
  out.push_back({w, [watch] { return Watch(*watch); }});

  auto cancel = std::make_shared<std::pair<ClientArgs, int64_t>>();
  CLI::App* c =
      app.add_subcommand("cancel", "Cancel a job (running jobs get SIGTERM, then SIGKILL)");
  AddClientOptions(c, &cancel->first);
  c->add_option("id", cancel->second, "job id")->required();
  out.push_back({c, [cancel] { return Cancel(cancel->first, cancel->second); }});

  struct ResizeArgs {
    ClientArgs client;
    int64_t id = 0;
    int gpus = 0;
  };
  auto resize = std::make_shared<ResizeArgs>();
  CLI::App* rs = app.add_subcommand(
      "resize", "Grow or shrink a running job's GPUs in place; it is told in $SCHEDKIT_EVENTS");
  AddClientOptions(rs, &resize->client);
  rs->add_option("id", resize->id, "job id")->required();
  rs->add_option("--gpus", resize->gpus, "the job's new GPU count")->required();
  out.push_back({rs, [resize] { return Resize(resize->client, resize->id, resize->gpus); }});

  auto status = std::make_shared<ClientArgs>();
  CLI::App* st = app.add_subcommand("status", "Cluster status of a running service");
  AddClientOptions(st, status.get());
  out.push_back({st, [status] { return StatusCmd(*status); }});

  for (const bool drained : {true, false}) {
    auto args = std::make_shared<std::pair<ClientArgs, std::string>>();
    CLI::App* d = drained ? app.add_subcommand("drain", "Start no new job on a node")
                          : app.add_subcommand("undrain", "Let a drained node take new jobs again");
    AddClientOptions(d, &args->first);
    d->add_option("node", args->second, "node name (see schedkit status)")->required();
    out.push_back({d, [args, drained] { return SetDrained(args->first, args->second, drained); }});
  }
}

}  // namespace schedkit::cli

// What the executable looks up (cli/runtime_loader.cc) after checking the ABI symbol.
extern "C" __attribute__((visibility("default"), used))
const char SCHEDKIT_PLUGIN_ABI_SYMBOL[] = SCHEDKIT_PLUGIN_ABI;

extern "C" __attribute__((visibility("default"))) void schedkit_define_runtime_commands(
    CLI::App* app, std::vector<schedkit::cli::Subcommand>* out) {
  schedkit::cli::DefineRuntimeCommands(*app, *out);
}
