#include "runtime/client.h"

#include <chrono>
#include <fstream>

#include "runtime/auth.h"

namespace schedkit::runtime {
namespace {

Result<std::string> FirstLine(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || line.empty()) {
    return Status::NotFound(path + ": cannot read the " + what +
                            " (is `schedkit serve` running with this --state-dir?)");
  }
  return line;
}

}  // namespace

Result<Endpoint> ResolveEndpoint(const std::string& state_dir, const std::string& address,
                                 const std::string& token_file) {
  Endpoint e;
  if (address.empty()) {
    Result<std::string> a = FirstLine(state_dir + "/address", "service address");
    if (!a.ok()) return a.status();
    e.address = *a;
  } else {
    e.address = address;
  }
  const std::string path = token_file.empty() ? state_dir + "/token" : token_file;
  Result<std::string> t = FirstLine(path, "token");
  if (!t.ok()) return t.status();
  SCHEDKIT_RETURN_IF_ERROR(CheckTokenFile(path, *t));
  e.token = *t;
  return e;
}

Client::Client(const Endpoint& endpoint, int channel_id) : token_(endpoint.token) {
  grpc::ChannelArguments args;
  if (channel_id > 0)
    args.SetInt("schedkit.channel_id", channel_id);  // Distinct args: no shared subchannel.
  stub_ = ::schedkit::v1::Scheduler::NewStub(
      grpc::CreateCustomChannel(endpoint.address, grpc::InsecureChannelCredentials(), args));
}

std::unique_ptr<grpc::ClientContext> Client::Context(double timeout_s) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->AddMetadata("authorization", "Bearer " + token_);
  ctx->set_deadline(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
  return ctx;
}

}  // namespace schedkit::runtime
