// What every client of `schedkit serve` needs (the CLI, the load test, the tests): where
// the service is, its token, and a stub whose calls carry the token.
#ifndef SCHEDKIT_RUNTIME_CLIENT_H_
#define SCHEDKIT_RUNTIME_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "schedkit/status.h"
#include "schedkit/v1/scheduler.grpc.pb.h"

namespace schedkit::runtime {

struct Endpoint {
  std::string address;  // host:port
  std::string token;
};

// `address` empty: read <state_dir>/address. `token_file` empty: <state_dir>/token.
Result<Endpoint> ResolveEndpoint(const std::string& state_dir, const std::string& address,
                                 const std::string& token_file);

class Client {
 public:
  // `channel_id` > 0 gives the client its own TCP connection (load tests use one per client).
  explicit Client(const Endpoint& endpoint, int channel_id = 0);
  ::schedkit::v1::Scheduler::Stub& stub() { return *stub_; }
  // A context carrying `authorization: Bearer <token>` and a deadline of `timeout_s`.
  std::unique_ptr<grpc::ClientContext> Context(double timeout_s = 30) const;

 private:
  std::string token_;
  std::unique_ptr<::schedkit::v1::Scheduler::Stub> stub_;
};

}  // namespace schedkit::runtime

#endif  // SCHEDKIT_RUNTIME_CLIENT_H_
