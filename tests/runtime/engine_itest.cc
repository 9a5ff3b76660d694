// The runtime engine in process (a real SQLite store, the real local backend) under a policy
// that checks the EventBatch contract of decision.h: a job is listed as finished only after
// the batch that listed it as arrived, never in the same batch, and never twice.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "runtime/backend.h"
#include "runtime/engine.h"
#include "runtime/store.h"
#include "schedkit/registry.h"

namespace schedkit::runtime {
namespace {

// FIFO, with every batch it is handed checked against the contract.
class ContractCheckingPolicy : public Policy {
 public:
  explicit ContractCheckingPolicy(std::unique_ptr<Policy> inner) : inner_(std::move(inner)) {}
  std::string_view Name() const override { return inner_->Name(); }
  void Decide(const ClusterView& view, const EventBatch& events, Decisions* out) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (JobId id : events.arrived) {
        if (!told_.insert(id).second)
          violations_.push_back("job " + std::to_string(id) + " arrived twice");
      }
      for (JobId id : events.finished) {
        const bool same_batch =
            std::find(events.arrived.begin(), events.arrived.end(), id) != events.arrived.end();
        if (same_batch)
          violations_.push_back("job " + std::to_string(id) + " arrived and finished in one batch");
        if (!told_.count(id))
          violations_.push_back("job " + std::to_string(id) + " finished unannounced");
        if (!ended_.insert(id).second)
          violations_.push_back("job " + std::to_string(id) + " finished twice");
      }
    }
    inner_->Decide(view, events, out);
  }
  std::vector<std::string> violations() const {
    std::lock_guard<std::mutex> lock(mu_);
    return violations_;
  }

 private:
  std::unique_ptr<Policy> inner_;
  mutable std::mutex mu_;
  std::set<JobId> told_, ended_;
  std::vector<std::string> violations_;
};

TEST(RuntimeEngine, SubmitThenCancelNeverReachesThePolicyInOneBatch) {
  const std::string dir = ::testing::TempDir() + "/runtime_engine_cancel";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  RuntimeOptions options;
  options.state_dir = dir;
  options.gpus = 1;
  options.poll_s = 0.01;
  Result<std::unique_ptr<Backend>> backend = MakeLocalBackend(options);
  ASSERT_TRUE(backend.ok()) << backend.status().message();
  Result<std::unique_ptr<Store>> store = Store::Open(dir + "/schedkit.db");
  ASSERT_TRUE(store.ok()) << store.status().message();
  PolicyRequest fifo;
  fifo.policy = "fifo";
  Result<std::unique_ptr<Policy>> inner = MakePolicy(fifo);
  ASSERT_TRUE(inner.ok()) << inner.status().message();
  auto checking = std::make_unique<ContractCheckingPolicy>(std::move(inner).value());
  ContractCheckingPolicy* policy = checking.get();
  Result<std::unique_ptr<Engine>> engine = Engine::Start(
      options, std::move(store).value(), std::move(backend).value(), std::move(checking));
  ASSERT_TRUE(engine.ok()) << engine.status().message();
  // Nothing starts on a drained node: every job stays pending until it is cancelled, and a
  // cancel issued right after its submit usually lands before the loop's next decision.
  ASSERT_TRUE((*engine)->Drain("local").ok());
  for (int i = 0; i < 200; ++i) {
    JobRecord job;
    job.command = {"true"};
    job.gpus = 1;
    job.working_dir = dir;
    Result<JobId> id = (*engine)->Submit(job);
    ASSERT_TRUE(id.ok()) << id.status().message();
    if (i % 10 == 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // Let some be told.
    Result<RunState> was = (*engine)->Cancel(*id);
    ASSERT_TRUE(was.ok()) << was.status().message();
    EXPECT_EQ(*was, RunState::kPending);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // A last decision.
  (*engine)->Stop();
  EXPECT_EQ((*engine)->Summary().pending, 0);
  const std::vector<std::string> violations = policy->violations();
  EXPECT_TRUE(violations.empty()) << violations.size()
                                  << " violations, first: " << violations.front();
}

}  // namespace
}  // namespace schedkit::runtime
