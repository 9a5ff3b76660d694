// The real-cluster runtime: `schedkit serve` as a library (docs/runtime.md).
//
// A RuntimeService is a gRPC server (the contract is proto/schedkit/v1/scheduler.proto)
// over a durable SQLite store, driving jobs through one backend (local processes or a
// Slurm cluster) with any registered policy, through the same Policy interface the
// simulator uses. Built only with SCHEDKIT_BUILD_RUNTIME (library schedkit_runtime).
#ifndef SCHEDKIT_RUNTIME_H_
#define SCHEDKIT_RUNTIME_H_

#include <memory>
#include <string>

#include "schedkit/registry.h"
#include "schedkit/status.h"

namespace schedkit {

struct RuntimeOptions {
  std::string backend = "local";  // "local" or "slurm".
  // local: the number of GPU slots (fake or real; CUDA_VISIBLE_DEVICES gets slot numbers).
  int gpus = 1;
  // local: a cluster spec file (any format LoadClusterSpec reads, e.g. the schedkit CSV
  // with its gpu_type column) whose nodes group this host's GPU slots, in file order, each
  // with its GPU type (docs/runtime.md, "GPU types"); `gpus` is then not used. Empty: one
  // node "local" of `gpus` slots.
  std::string cluster;
  PolicyRequest policy;  // policy.policy empty = "fifo".
  // host:port; port 0 picks a free one (written to <state_dir>/address). Loopback by
  // default; any other address is reachable by whoever can reach the host.
  std::string listen = "127.0.0.1:0";
  // Holds schedkit.db (SQLite, WAL), token (0600), address and jobs/<id>/ (logs,
  // checkpoint directory). Created with mode 0700 if missing. REQUIRES: non-empty.
  std::string state_dir;
  double grace_s = 10;  // SIGTERM -> SIGKILL delay when a local job is preempted or cancelled.
  double poll_s = 0.2;  // How often running jobs are checked for completion (local).
};

class RuntimeService {
 public:
  // Opens (or creates) the state, re-adopts or requeues jobs that were running, and
  // starts serving. Errors name the bad option or the file that could not be used.
  static Result<std::unique_ptr<RuntimeService>> Start(const RuntimeOptions& options);
  virtual ~RuntimeService() = default;

  // "host:port" actually bound.
  virtual std::string address() const = 0;
  // Blocks until Shutdown() is called (from another thread or a signal handler thread).
  virtual void Wait() = 0;
  // Stops serving and the scheduling loop. Running jobs keep running (a later Start
  // re-adopts them); state is already durable.
  virtual void Shutdown() = 0;
};

}  // namespace schedkit

#endif  // SCHEDKIT_RUNTIME_H_
